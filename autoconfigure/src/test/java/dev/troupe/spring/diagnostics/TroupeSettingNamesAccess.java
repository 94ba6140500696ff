package dev.troupe.spring.diagnostics;

import java.util.Collection;

/** Test access to the table of exceptions to the naming rule. */
public final class TroupeSettingNamesAccess {

    private TroupeSettingNamesAccess() {
    }

    public static Collection<String> exceptions() {
        return TroupeSettingNames.EXCEPTIONS.values();
    }
}
