package dev.troupe.remote.json;

import com.fasterxml.jackson.annotation.JsonTypeInfo;

/** A record whose payload is typed by a class-name type id inside the JSON: the allow-list must decide it. */
public record Envelope(@JsonTypeInfo(use = JsonTypeInfo.Id.CLASS) Object payload) {
}
