package dev.troupe.spring.diagnostics;

import java.sql.Connection;
import java.sql.DriverManager;

/** Another process that holds an H2 database file open: prints a line once it does, lets go when its stdin closes. */
public final class HoldH2 {

    private HoldH2() {
    }

    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection(args[0], "sa", "")) {
            c.createStatement().execute("CREATE TABLE IF NOT EXISTS held (id INT)");
            System.out.println("holding " + args[0]);
            System.out.flush();
            while (System.in.read() >= 0) {
                // until the test closes our stdin (or ends)
            }
        }
    }
}
