package dev.troupe.remote.json;

/**
 * A message class Jackson can write but not build: not a record, one constructor with a
 * parameter and a public field of the same name, no {@code @JsonCreator}. Jackson finds no
 * creator it can use and fails every read ("cannot construct instance").
 */
public final class Unbuildable {

    public final String text;

    public Unbuildable(String text) {
        this.text = text;
    }
}
