'use strict';
/*
 * One consumer group member on librdkafka, for kscale's integration tests: the counterpart of the
 * lab's Java CountingMember, driven by io.kscale.lab.expansion.ProcessCountingMember.
 *
 *   node member.js <bootstrap> <topic> <group.id> <client.id> <group.remote.assignor>
 *
 * It joins <group.id> with group.protocol=consumer (KIP-848), so the broker assigns partitions
 * with the named assignor, and prints one line per event on stdout, fields separated by tabs:
 *
 *   ready    <librdkafka version>
 *   assigned <topic>:<partition>,...      (after librdkafka took the new partitions)
 *   revoked  <topic>:<partition>,...      (before librdkafka lets them go)
 *   record   <topic> <partition> <offset> <key, base64> <value, base64>
 *   error    <message>
 *
 * Tabs and base64 keep the Java side free of a JSON parser. librdkafka stores a record's offset
 * when it hands the record to this script, and commits stored offsets every 100 ms and for the
 * partitions it gives up (enable.auto.commit; rdkafka_assignment.c commits "unassigned
 * partitions"), so a partition that moves resumes where this member stopped. It leaves the group
 * and exits when its stdin ends: the parent closes it, or dies.
 */
const Kafka = require('@confluentinc/kafka-javascript');

const [bootstrap, topic, groupId, clientId, assignor] = process.argv.slice(2);
if (!assignor) {
  process.stderr.write('usage: node member.js <bootstrap> <topic> <group.id> <client.id> <group.remote.assignor>\n');
  process.exit(2);
}

function line(...fields) {
  process.stdout.write(fields.join('\t') + '\n');
}

function partitions(assignment) {
  return assignment.map((tp) => `${tp.topic}:${tp.partition}`).join(',');
}

function base64(buffer) {
  return buffer ? buffer.toString('base64') : '';
}

const consumer = new Kafka.KafkaConsumer({
  'bootstrap.servers': bootstrap,
  'group.id': groupId,
  'client.id': clientId,
  'group.protocol': 'consumer',
  'group.remote.assignor': assignor,
  'enable.auto.commit': true,
  'auto.commit.interval.ms': 100,
  // The library's own handler: incremental assign and unassign, after the 'rebalance' event.
  'rebalance_cb': true,
}, {
  'auto.offset.reset': 'earliest',
});

consumer.on('rebalance', (err, assignment) => {
  if (err.code === Kafka.CODES.ERRORS.ERR__REVOKE_PARTITIONS) {
    line('revoked', partitions(assignment));
  } else if (err.code === Kafka.CODES.ERRORS.ERR__ASSIGN_PARTITIONS) {
    // Printed on the next turn: the library assigns right after this event.
    setImmediate(() => line('assigned', partitions(assignment)));
  } else {
    line('error', `rebalance: ${err.message}`);
  }
});

consumer.on('data', (message) => {
  line('record', message.topic, message.partition, message.offset, base64(message.key), base64(message.value));
});

consumer.on('event.error', (err) => line('error', String(err.message || err).replace(/\s+/g, ' ')));

consumer.on('ready', () => {
  line('ready', Kafka.librdkafkaVersion);
  consumer.subscribe([topic]);
  consumer.consume();
});

let leaving = false;
function leave() {
  if (leaving) {
    return;
  }
  leaving = true;
  consumer.disconnect(() => process.exit(0));
  // A disconnect that hangs must not keep the process: the parent waits for the exit.
  setTimeout(() => process.exit(1), 10000).unref();
}

process.stdin.on('end', leave);
process.stdin.on('error', leave);
process.stdin.resume();
process.on('SIGTERM', leave);

consumer.connect({ timeout: 30000 }, (err) => {
  if (err) {
    line('error', `connect: ${err.message}`);
    process.exit(1);
  }
});
