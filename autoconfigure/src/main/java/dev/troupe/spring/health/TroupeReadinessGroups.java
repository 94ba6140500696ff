package dev.troupe.spring.health;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.health.actuate.endpoint.AdditionalHealthEndpointPath;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroup;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor;
import org.springframework.boot.health.actuate.endpoint.HttpCodeStatusMapper;
import org.springframework.boot.health.actuate.endpoint.StatusAggregator;

import org.springframework.core.Ordered;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Adds a health contributor to the {@code readiness} group (when the group exists), so a
 * load balancer stops sending work to a node whose actors cannot keep up. Runs after Boot's
 * own post-processors, so it also extends the group Boot's availability probes add.
 * {@code troupe.health.readiness=false} leaves the group alone.
 */
public class TroupeReadinessGroups implements HealthEndpointGroupsPostProcessor, Ordered {

    /** The group Boot's availability probes create. */
    public static final String READINESS = "readiness";

    private final String contributorName;

    /**
     * @param contributorName the health contributor to add, such as {@code troupe}
     */
    public TroupeReadinessGroups(String contributorName) {
        this.contributorName = contributorName;
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public HealthEndpointGroups postProcessHealthEndpointGroups(HealthEndpointGroups groups) {
        final HealthEndpointGroup readiness = groups.get(READINESS);
        if (readiness == null || readiness.isMember(contributorName)) {
            return groups;
        }
        final Map<String, HealthEndpointGroup> named = new LinkedHashMap<>();
        for (String name : groups.getNames()) {
            named.put(name, groups.get(name));
        }
        named.put(READINESS, new WithMember(readiness, contributorName));
        return HealthEndpointGroups.of(groups.getPrimary(), named);
    }

    /** A group with one more member. */
    private static final class WithMember implements HealthEndpointGroup {
        private final HealthEndpointGroup delegate;
        private final String member;

        WithMember(HealthEndpointGroup delegate, String member) {
            this.delegate = delegate;
            this.member = member;
        }

        @Override
        public boolean isMember(String name) {
            return member.equals(name) || delegate.isMember(name);
        }

        @Override
        public boolean showComponents(SecurityContext securityContext) {
            return delegate.showComponents(securityContext);
        }

        @Override
        public boolean showDetails(SecurityContext securityContext) {
            return delegate.showDetails(securityContext);
        }

        @Override
        public StatusAggregator getStatusAggregator() {
            return delegate.getStatusAggregator();
        }

        @Override
        public HttpCodeStatusMapper getHttpCodeStatusMapper() {
            return delegate.getHttpCodeStatusMapper();
        }

        @Override
        public AdditionalHealthEndpointPath getAdditionalPath() {
            return delegate.getAdditionalPath();
        }
    }
}
