package io.kscale.lab.cluster;

import java.util.Locale;

/**
 * How clients reach a cluster the lab starts.
 *
 * <ul>
 *   <li>{@link #PLAINTEXT}: no TLS, no authentication, no authorizer (the default).
 *   <li>{@link #SASL_SSL}: clients connect over TLS and authenticate with SCRAM-SHA-512; brokers
 *       run {@code StandardAuthorizer} with {@code allow.everyone.if.no.acl.found=false}, so a
 *       user other than the cluster's admin (a super user) may do only what ACLs allow. Brokers
 *       and controllers talk to each other over mutual TLS. Certificates and passwords are made
 *       when the cluster starts, in its own folder; nothing is reused across clusters. Process
 *       backend only.
 * </ul>
 */
public enum ClusterSecurity {
    PLAINTEXT,
    SASL_SSL;

    /** The SCRAM user of a {@link #SASL_SSL} cluster that is a super user, as {@code clientProperties()} log in. */
    public static final String ADMIN_USER = "admin";

    /**
     * Parses a command-line value, case-insensitively: {@code plaintext}, {@code sasl_ssl} or {@code sasl-ssl}.
     *
     * @throws IllegalArgumentException for any other value
     */
    public static ClusterSecurity parse(String value) {
        String normal = value.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        for (ClusterSecurity security : values()) {
            if (security.name().equals(normal)) {
                return security;
            }
        }
        throw new IllegalArgumentException("security must be plaintext or sasl_ssl, got '" + value + "'");
    }
}
