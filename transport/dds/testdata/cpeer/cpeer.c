/*
 * DDS reference peer on Cyclone DDS's C API (Debian's cyclonedds 0.10).
 *
 * A writer or reader of std_msgs::msg::dds_::String_ with the same options
 * and output lines as ../peer_common.py (see there). Built at test time by
 * transport/dds/internal/ddspeer: idlc -l c String.idl, then
 * gcc cpeer.c String.c -lddsc.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dds/dds.h"
#include "String.h"

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile uint32_t matched;

/* emit prints one JSON line and flushes it; listeners call it from Cyclone's
 * threads. */
static void emit(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  pthread_mutex_lock(&out_lock);
  vprintf(fmt, ap);
  putchar('\n');
  fflush(stdout);
  pthread_mutex_unlock(&out_lock);
  va_end(ap);
}

static const char *policy_name(uint32_t id)
{
  switch (id) {
  case DDS_USERDATA_QOS_POLICY_ID: return "USER_DATA";
  case DDS_DURABILITY_QOS_POLICY_ID: return "DURABILITY";
  case DDS_PRESENTATION_QOS_POLICY_ID: return "PRESENTATION";
  case DDS_DEADLINE_QOS_POLICY_ID: return "DEADLINE";
  case DDS_LATENCYBUDGET_QOS_POLICY_ID: return "LATENCY_BUDGET";
  case DDS_OWNERSHIP_QOS_POLICY_ID: return "OWNERSHIP";
  case DDS_LIVELINESS_QOS_POLICY_ID: return "LIVELINESS";
  case DDS_PARTITION_QOS_POLICY_ID: return "PARTITION";
  case DDS_RELIABILITY_QOS_POLICY_ID: return "RELIABILITY";
  case DDS_DESTINATIONORDER_QOS_POLICY_ID: return "DESTINATION_ORDER";
  case DDS_HISTORY_QOS_POLICY_ID: return "HISTORY";
  case DDS_DATA_REPRESENTATION_QOS_POLICY_ID: return "DATA_REPRESENTATION";
  default: return "OTHER";
  }
}

static void on_pub_matched(dds_entity_t e, const dds_publication_matched_status_t st, void *arg)
{
  (void)e; (void)arg;
  matched = st.current_count;
  emit("{\"ev\":\"matched\",\"count\":%u}", st.current_count);
}

static void on_sub_matched(dds_entity_t e, const dds_subscription_matched_status_t st, void *arg)
{
  (void)e; (void)arg;
  matched = st.current_count;
  emit("{\"ev\":\"matched\",\"count\":%u}", st.current_count);
}

static void on_offered_incompatible(dds_entity_t e, const dds_offered_incompatible_qos_status_t st, void *arg)
{
  (void)e; (void)arg;
  emit("{\"ev\":\"incompatible\",\"side\":\"offered\",\"policy\":\"%s\"}", policy_name(st.last_policy_id));
}

static void on_requested_incompatible(dds_entity_t e, const dds_requested_incompatible_qos_status_t st, void *arg)
{
  (void)e; (void)arg;
  emit("{\"ev\":\"incompatible\",\"side\":\"requested\",\"policy\":\"%s\"}", policy_name(st.last_policy_id));
}

static bool got_input; /* a line ("go") came on stdin, or it ended */

/* stdin_ended waits up to ms milliseconds for stdin to reach end of file
 * (input is discarded, but noted in got_input) and reports whether it has. */
static bool stdin_ended(int ms)
{
  static bool ended;
  char buf[4096];
  struct pollfd p = { .fd = 0, .events = POLLIN };
  while (!ended) {
    int n = poll(&p, 1, ms);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    ssize_t r = read(0, buf, sizeof buf);
    got_input = true;
    if (r <= 0)
      ended = true;
    ms = 0;
  }
  return ended;
}

static void describe(const char *data)
{
  size_t len = strlen(data);
  const char *colon = strchr(data, ':');
  long i = -1;
  bool ok = false;
  if (colon != NULL && colon != data) {
    char *end;
    i = strtol(data, &end, 10);
    if (end != colon || i < 0)
      i = -1;
    ok = i >= 0 && strspn(colon + 1, "x") == strlen(colon + 1);
  }
  emit("{\"ev\":\"sample\",\"i\":%ld,\"len\":%zu,\"ok\":%s}", i, len, ok ? "true" : "false");
}

static void usage(const char *prog)
{
  fprintf(stderr,
          "usage: %s --role writer|reader [--topic rt/chatter] [--reliability reliable|best-effort]\n"
          "  [--durability volatile|transient-local] [--depth N (0: keep all)] [--count N]\n"
          "  [--period seconds] [--size bytes] [--domain N] [--wait-match N] [--wait-go]\n",
          prog);
  exit(2);
}

int main(int argc, char **argv)
{
  const char *role = NULL, *topic_name = "rt/chatter";
  bool reliable = true, transient_local = false;
  int depth = 10, count = 0, size = 0, domain = 0, wait_match = 0;
  bool wait_go = false;
  double period = 0;
  static const struct option opts[] = {
    { "role", required_argument, NULL, 'r' },
    { "topic", required_argument, NULL, 't' },
    { "reliability", required_argument, NULL, 'R' },
    { "durability", required_argument, NULL, 'D' },
    { "depth", required_argument, NULL, 'd' },
    { "count", required_argument, NULL, 'c' },
    { "period", required_argument, NULL, 'p' },
    { "size", required_argument, NULL, 's' },
    { "domain", required_argument, NULL, 'i' },
    { "wait-match", required_argument, NULL, 'w' },
    { "wait-go", no_argument, NULL, 'g' },
    { NULL, 0, NULL, 0 },
  };
  int opt;
  while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
    switch (opt) {
    case 'r': role = optarg; break;
    case 't': topic_name = optarg; break;
    case 'R':
      if (strcmp(optarg, "reliable") == 0) reliable = true;
      else if (strcmp(optarg, "best-effort") == 0) reliable = false;
      else usage(argv[0]);
      break;
    case 'D':
      if (strcmp(optarg, "volatile") == 0) transient_local = false;
      else if (strcmp(optarg, "transient-local") == 0) transient_local = true;
      else usage(argv[0]);
      break;
    case 'd': depth = atoi(optarg); break;
    case 'c': count = atoi(optarg); break;
    case 'p': period = atof(optarg); break;
    case 's': size = atoi(optarg); break;
    case 'i': domain = atoi(optarg); break;
    case 'w': wait_match = atoi(optarg); break;
    case 'g': wait_go = true; break;
    default: usage(argv[0]);
    }
  }
  if (role == NULL || (strcmp(role, "writer") != 0 && strcmp(role, "reader") != 0) || depth < 0 || size < 0)
    usage(argv[0]);
  bool writer = strcmp(role, "writer") == 0;

  dds_entity_t dp = dds_create_participant((dds_domainid_t)domain, NULL, NULL);
  if (dp < 0) {
    fprintf(stderr, "dds_create_participant: %s\n", dds_strretcode(-dp));
    return 1;
  }
  dds_entity_t topic = dds_create_topic(dp, &std_msgs_msg_dds__String__desc, topic_name, NULL, NULL);
  if (topic < 0) {
    fprintf(stderr, "dds_create_topic: %s\n", dds_strretcode(-topic));
    return 1;
  }
  dds_qos_t *qos = dds_create_qos();
  dds_qset_reliability(qos, reliable ? DDS_RELIABILITY_RELIABLE : DDS_RELIABILITY_BEST_EFFORT, DDS_SECS(10));
  dds_qset_durability(qos, transient_local ? DDS_DURABILITY_TRANSIENT_LOCAL : DDS_DURABILITY_VOLATILE);
  dds_history_kind_t hist = depth == 0 ? DDS_HISTORY_KEEP_ALL : DDS_HISTORY_KEEP_LAST;
  dds_qset_history(qos, hist, depth == 0 ? 1 : depth);
  /* Cyclone keeps a TRANSIENT_LOCAL writer's history by DURABILITY_SERVICE
   * (default KEEP_LAST 1), not by HISTORY: make them agree. */
  dds_qset_durability_service(qos, 0, hist, depth == 0 ? 1 : depth, DDS_LENGTH_UNLIMITED,
                              DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED);
  dds_listener_t *l = dds_create_listener(NULL);
  int rc = 0;

  if (writer) {
    dds_lset_publication_matched(l, on_pub_matched);
    dds_lset_offered_incompatible_qos(l, on_offered_incompatible);
    dds_entity_t w = dds_create_writer(dp, topic, qos, l);
    if (w < 0) {
      fprintf(stderr, "dds_create_writer: %s\n", dds_strretcode(-w));
      return 1;
    }
    emit("{\"ev\":\"ready\"}");
    while (matched < (uint32_t)wait_match && !stdin_ended(10))
      ;
    while (wait_go && !got_input)
      stdin_ended(1000);
    char *buf = malloc((size_t)size + 32);
    int i = 0;
    while ((count == 0 || i < count) && !stdin_ended(0)) {
      int n = snprintf(buf, 32, "%d:", i);
      if (size > n) {
        memset(buf + n, 'x', (size_t)(size - n));
        buf[size] = '\0';
      }
      std_msgs_msg_dds__String_ msg = { .data = buf };
      dds_return_t ret = dds_write(w, &msg);
      if (ret < 0) {
        fprintf(stderr, "dds_write %d: %s\n", i, dds_strretcode(-ret));
        rc = 1;
        break;
      }
      i++;
      if (period > 0)
        stdin_ended((int)(period * 1000));
    }
    if (rc == 0 && !stdin_ended(0))
      emit("{\"ev\":\"done\",\"count\":%d}", i);
    while (!stdin_ended(1000))
      ;
    free(buf);
  } else {
    dds_lset_subscription_matched(l, on_sub_matched);
    dds_lset_requested_incompatible_qos(l, on_requested_incompatible);
    dds_entity_t r = dds_create_reader(dp, topic, qos, l);
    if (r < 0) {
      fprintf(stderr, "dds_create_reader: %s\n", dds_strretcode(-r));
      return 1;
    }
    dds_entity_t ws = dds_create_waitset(dp);
    dds_entity_t rdcond = dds_create_readcondition(r, DDS_ANY_STATE);
    dds_waitset_attach(ws, rdcond, r);
    emit("{\"ev\":\"ready\"}");
    int got = 0;
    enum { N = 16 };
    void *samples[N];
    dds_sample_info_t infos[N];
    while ((count == 0 || got < count) && !stdin_ended(0)) {
      dds_waitset_wait(ws, NULL, 0, DDS_MSECS(100));
      for (;;) {
        samples[0] = NULL;
        dds_return_t n = dds_take(r, samples, infos, N, N);
        if (n <= 0)
          break;
        for (int k = 0; k < n; k++) {
          if (!infos[k].valid_data)
            continue;
          describe(((std_msgs_msg_dds__String_ *)samples[k])->data);
          got++;
        }
        dds_return_loan(r, samples, n);
      }
    }
    if (count > 0 && got >= count)
      emit("{\"ev\":\"done\",\"count\":%d}", got);
  }
  dds_delete_listener(l);
  dds_delete_qos(qos);
  dds_delete(dp);
  return rc;
}
