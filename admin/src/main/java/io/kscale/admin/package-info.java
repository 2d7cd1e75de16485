/**
 * kscale's operator API: {@link io.kscale.admin.TopicExpansions} shows which task count T each
 * consumer group keeps for a topic, refuses a partition count that would move keys, grows the
 * topic and follows the groups until every new partition sits with its task. The
 * {@code kscale-admin} command is built on it.
 */
package io.kscale.admin;
