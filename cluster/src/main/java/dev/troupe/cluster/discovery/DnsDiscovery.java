package dev.troupe.cluster.discovery;

import dev.troupe.cluster.discovery.HostPort;
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DefaultDnsRecordDecoder;
import io.netty.handler.codec.dns.DnsRawRecord;
import io.netty.handler.codec.dns.DnsRecord;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.resolver.ResolvedAddressTypes;
import io.netty.resolver.dns.DnsNameResolver;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.DnsNameResolverTimeoutException;
import io.netty.resolver.dns.DnsServerAddressStreamProviders;
import io.netty.resolver.dns.NoopAuthoritativeDnsServerCache;
import io.netty.resolver.dns.NoopDnsCache;
import io.netty.resolver.dns.NoopDnsCnameCache;
import io.netty.resolver.dns.SingletonDnsServerAddressStreamProvider;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Discovery from DNS, with Netty's asynchronous resolver, asking afresh on every lookup (no cache):
 * <ul>
 *   <li>{@link #addresses}: the A and AAAA records of a name, each with one configured port — a
 *       Kubernetes headless Service or a compose service name;</li>
 *   <li>{@link #srv}: the SRV records of a name ({@code _troupe._tcp.my-svc.ns.svc.cluster.local}),
 *       each target resolved to its addresses, with the record's port.</li>
 * </ul>
 * By default the resolver asks the name servers of the platform ({@code /etc/resolv.conf}); a
 * configured server replaces them (tests point it at a DNS server on loopback). The hosts file is
 * not consulted: discovery reflects DNS only. A name that does not exist (or has no records of the
 * type) yields no candidates; a timeout or a server failure fails the lookup, so the cluster keeps
 * the previous candidates. One I/O thread per provider; {@link #close()} stops it.
 */
public final class DnsDiscovery implements MemberDiscovery {

    private final String name;
    private final int port;
    private final boolean srv;
    private final EventLoopGroup group;
    private final DnsNameResolver resolver;

    private DnsDiscovery(String name, int port, boolean srv, InetSocketAddress server, Duration timeout) {
        this.name = Objects.requireNonNull(name, "name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("the DNS name must not be empty");
        }
        if (!srv && (port < 1 || port > 65535)) {
            throw new IllegalArgumentException("the port for the A/AAAA records of '" + name + "' must be within 1-65535: " + port);
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the DNS query timeout must be positive: " + timeout);
        }
        this.port = port;
        this.srv = srv;
        this.group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("troupe-dns-discovery", true), NioIoHandler.newFactory());
        this.resolver = new DnsNameResolverBuilder(group.next())
            .datagramChannelType(NioDatagramChannel.class)
            .nameServerProvider(server == null ? DnsServerAddressStreamProviders.platformDefault()
                : new SingletonDnsServerAddressStreamProvider(server))
            // Every lookup must see the records as they are now: nodes come and go.
            .resolveCache(NoopDnsCache.INSTANCE)
            .cnameCache(NoopDnsCnameCache.INSTANCE)
            .authoritativeDnsServerCache(NoopAuthoritativeDnsServerCache.INSTANCE)
            .hostsFileEntriesResolver((host, types) -> null)
            .resolvedAddressTypes(ResolvedAddressTypes.IPV4_PREFERRED)
            .queryTimeoutMillis(timeout.toMillis())
            .build();
    }

    /**
     * @param name a name whose A/AAAA records list the nodes, e.g. {@code worker} or {@code my-svc.ns.svc.cluster.local}
     * @param port the transport port every node listens on
     * @param server a DNS server to ask instead of the platform's, or null
     * @param timeout how long one query may take
     * @return the provider
     */
    public static DnsDiscovery addresses(String name, int port, InetSocketAddress server, Duration timeout) {
        return new DnsDiscovery(name, port, false, server, timeout);
    }

    /**
     * @param name a name whose SRV records list the nodes and their ports
     * @param server a DNS server to ask instead of the platform's, or null
     * @param timeout how long one query may take
     * @return the provider
     */
    public static DnsDiscovery srv(String name, InetSocketAddress server, Duration timeout) {
        return new DnsDiscovery(name, 0, true, server, timeout);
    }

    @Override
    public CompletionStage<List<HostPort>> lookup() {
        final CompletableFuture<List<HostPort>> result = new CompletableFuture<>();
        if (srv) {
            lookupSrv(result);
        } else {
            resolver.resolveAll(name).addListener((Future<List<InetAddress>> f) -> {
                if (f.isSuccess()) {
                    final TreeSet<HostPort> out = new TreeSet<>();
                    for (InetAddress a : f.getNow()) {
                        out.add(new HostPort(a.getHostAddress(), port));
                    }
                    result.complete(new ArrayList<>(out));
                } else {
                    completeFailed(result, f.cause());
                }
            });
        }
        return result;
    }

    private void lookupSrv(CompletableFuture<List<HostPort>> result) {
        resolver.resolveAll(new DefaultDnsQuestion(name, DnsRecordType.SRV)).addListener((Future<List<DnsRecord>> f) -> {
            if (!f.isSuccess()) {
                completeFailed(result, f.cause());
                return;
            }
            final List<String> targets = new ArrayList<>();
            final List<Integer> ports = new ArrayList<>();
            try {
                for (DnsRecord r : f.getNow()) {
                    if (r instanceof DnsRawRecord raw && r.type() == DnsRecordType.SRV) {
                        // RDATA: priority(2) weight(2) port(2) target; RFC 2782 forbids compressing the target.
                        final ByteBuf content = raw.content();
                        final int i = content.readerIndex();
                        ports.add(content.getUnsignedShort(i + 4));
                        targets.add(DefaultDnsRecordDecoder.decodeName(content.duplicate().readerIndex(i + 6)));
                    }
                }
            } finally {
                // The resolver hands over records it retained for this call: release them here.
                for (DnsRecord r : f.getNow()) {
                    io.netty.util.ReferenceCountUtil.release(r);
                }
            }
            if (targets.isEmpty()) {
                result.complete(List.of());
                return;
            }
            final TreeSet<HostPort> out = new TreeSet<>();
            final AtomicInteger left = new AtomicInteger(targets.size());
            for (int t = 0; t < targets.size(); t++) {
                final int targetPort = ports.get(t);
                resolver.resolveAll(targets.get(t)).addListener((Future<List<InetAddress>> a) -> {
                    // The resolver's callbacks all run on its one event loop, so 'out' needs no lock.
                    if (a.isSuccess()) {
                        for (InetAddress addr : a.getNow()) {
                            if (targetPort > 0) {
                                out.add(new HostPort(addr.getHostAddress(), targetPort));
                            }
                        }
                    }
                    if (left.decrementAndGet() == 0) {
                        result.complete(new ArrayList<>(out));
                    }
                });
            }
        });
    }

    private static void completeFailed(CompletableFuture<List<HostPort>> result, Throwable cause) {
        if (isNoSuchName(cause)) {
            result.complete(List.of());
        } else {
            result.completeExceptionally(cause);
        }
    }

    /** NXDOMAIN or no records: no candidates. A timeout anywhere in the chain is a failure. */
    private static boolean isNoSuchName(Throwable cause) {
        if (!(cause instanceof UnknownHostException)) {
            return false;
        }
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof DnsNameResolverTimeoutException) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        resolver.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    @Override
    public String toString() {
        return "DnsDiscovery(" + (srv ? "SRV " + name : name + ":" + port) + ")";
    }
}
