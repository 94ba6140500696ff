package dev.troupe.spring.autoconfigure;

import org.springframework.jdbc.datasource.DelegatingDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

/** A DataSource that can be made to refuse connections, as a pool does while its database is down. */
final class SwitchableDataSource extends DelegatingDataSource {

    private volatile boolean down;

    SwitchableDataSource(DataSource target) {
        super(target);
    }

    void down(boolean down) {
        this.down = down;
    }

    @Override
    public Connection getConnection() throws SQLException {
        refuseIfDown();
        return super.getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        refuseIfDown();
        return super.getConnection(username, password);
    }

    private void refuseIfDown() throws SQLException {
        if (down) {
            throw new SQLTransientConnectionException("Connection is not available: the database is down (test)", "08001");
        }
    }
}
