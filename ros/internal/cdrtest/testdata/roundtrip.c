/*
 * Batch CDR round trip through Cyclone DDS's serializer, for types whose IDL
 * and descriptor table are generated at test time (see
 * cmd/afor-rosgen/gen_test.go): table.inc holds lines
 *   { "pkg/msg/Name", &pkg_msg_dds__Name__desc },
 *
 * Each stdin line is "TYPE HEX" (HEX: a CDR_LE payload with its
 * encapsulation header). For each, the driver validates the payload with
 * dds_stream_normalize_data, reads it into a sample, writes the sample again
 * and prints "OK HEX" with the new payload, or "ERR reason".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dds/dds.h"
#include "dds/ddsi/ddsi_cdrstream.h"
#include "types.h"

#define XCDR1 1u

struct entry {
  const char *name;
  const dds_topic_descriptor_t *desc;
};

static const struct entry entries[] = {
#include "table.inc"
};

static int hexval (int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

static void roundtrip (const struct entry *e, unsigned char *buf, size_t n) {
  if (n < 4 || buf[0] != 0 || buf[1] != 1) { printf ("ERR not a CDR_LE payload\n"); return; }
  uint32_t off = 0, size = (uint32_t) (n - 4);
  if (dds_stream_normalize_data ((char *) buf + 4, &off, size, false, XCDR1, e->desc->m_ops) == NULL) {
    printf ("ERR dds_stream_normalize_data rejected the payload\n");
    return;
  }
  void *sample = dds_alloc (e->desc->m_size);
  dds_istream_t is;
  dds_istream_init (&is, size, buf + 4, XCDR1);
  dds_stream_read (&is, sample, e->desc->m_ops);
  dds_istream_fini (&is);
  dds_ostream_t os;
  dds_ostream_init (&os, 0, XCDR1);
  dds_stream_write (&os, sample, e->desc->m_ops);
  printf ("OK 00010000");
  for (uint32_t i = 0; i < os.m_index; i++) printf ("%02x", os.m_buffer[i]);
  printf ("\n");
  dds_ostream_fini (&os);
  dds_stream_free_sample (sample, e->desc->m_ops);
  dds_free (sample);
}

int main (void) {
  static char line[1 << 20];
  static unsigned char buf[1 << 19];
  while (fgets (line, sizeof (line), stdin) != NULL) {
    char *sp = strchr (line, ' ');
    if (sp == NULL) { printf ("ERR malformed line\n"); continue; }
    *sp = '\0';
    const struct entry *e = NULL;
    for (size_t i = 0; i < sizeof (entries) / sizeof (entries[0]); i++)
      if (strcmp (entries[i].name, line) == 0) e = &entries[i];
    if (e == NULL) { printf ("ERR unknown type %s\n", line); continue; }
    size_t n = 0;
    int hi = -1;
    for (char *p = sp + 1; *p != '\0' && n < sizeof (buf); p++) {
      int v = hexval (*p);
      if (v < 0) continue;
      if (hi < 0) { hi = v; continue; }
      buf[n++] = (unsigned char) (hi << 4 | v);
      hi = -1;
    }
    roundtrip (e, buf, n);
    fflush (stdout);
  }
  return 0;
}
