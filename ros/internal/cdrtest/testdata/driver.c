/*
 * CDR oracle built on Cyclone DDS's own serializer, driven by
 * ../cyclone_test.go. Compiled at test time against the C code that idlc
 * generates from oracle.idl.
 *
 *   driver decode TYPE   stdin: hex of a CDR payload (encapsulation header
 *                        included). Validates it with dds_stream_normalize_data,
 *                        reads it into a sample, writes the sample again and
 *                        prints the hex of the new payload.
 *   driver encode TYPE   prints the hex of a payload that C builds itself
 *                        (values mirrored in the Go test).
 *
 * Exit status 2 means Cyclone rejected the input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dds/dds.h"
#include "dds/ddsi/ddsi_cdrstream.h"
#include "oracle.h"

#define XCDR1 1u

struct entry {
  const char *name;
  const dds_topic_descriptor_t *desc;
  void (*build) (void *sample);
};

static char *sdup (const char *s) { char *d = dds_alloc (strlen (s) + 1); strcpy (d, s); return d; }

static void header (std_msgs_msg_dds__Header_ *h) {
  h->stamp.sec = -7;
  h->stamp.nanosec = 999999999u;
  h->frame_id = sdup ("base_link");
}

static void build_header (void *p) { header (p); }

static void build_joint_state (void *p) {
  sensor_msgs_msg_dds__JointState_ *m = p;
  header (&m->header);
  m->name._length = m->name._maximum = 2;
  m->name._buffer = dds_alloc (2 * sizeof (char *));
  m->name._buffer[0] = sdup ("elbow");
  m->name._buffer[1] = sdup ("");
  m->name._release = true;
  m->position._length = m->position._maximum = 3;
  m->position._buffer = dds_alloc (3 * sizeof (double));
  m->position._buffer[0] = 1.5; m->position._buffer[1] = -2.25; m->position._buffer[2] = 1e300;
  m->position._release = true;
  m->effort._length = m->effort._maximum = 1;
  m->effort._buffer = dds_alloc (sizeof (double));
  m->effort._buffer[0] = 0.125;
  m->effort._release = true;
}

static void build_point_cloud2 (void *p) {
  sensor_msgs_msg_dds__PointCloud2_ *m = p;
  header (&m->header);
  m->height = 1; m->width = 3;
  m->fields._length = m->fields._maximum = 2;
  m->fields._buffer = dds_alloc (2 * sizeof (sensor_msgs_msg_dds__PointField_));
  m->fields._buffer[0].name = sdup ("x"); m->fields._buffer[0].offset = 0; m->fields._buffer[0].datatype = 7; m->fields._buffer[0].count = 1;
  m->fields._buffer[1].name = sdup ("intensity"); m->fields._buffer[1].offset = 4; m->fields._buffer[1].datatype = 2; m->fields._buffer[1].count = 1;
  m->fields._release = true;
  m->is_bigendian = false;
  m->point_step = 5; m->row_step = 15;
  m->data._length = m->data._maximum = 15;
  m->data._buffer = dds_alloc (15);
  for (int i = 0; i < 15; i++) m->data._buffer[i] = (uint8_t) (i * 17);
  m->data._release = true;
  m->is_dense = true;
}

static void build_goal_status_array (void *p) {
  action_msgs_msg_dds__GoalStatusArray_ *m = p;
  m->status_list._length = m->status_list._maximum = 2;
  m->status_list._buffer = dds_alloc (2 * sizeof (action_msgs_msg_dds__GoalStatus_));
  m->status_list._release = true;
  for (int i = 0; i < 2; i++) {
    action_msgs_msg_dds__GoalStatus_ *s = &m->status_list._buffer[i];
    for (int j = 0; j < 16; j++) s->goal_info.goal_id.uuid[j] = (uint8_t) (16 * i + j);
    s->goal_info.stamp.sec = 100 + i;
    s->goal_info.stamp.nanosec = 5;
    s->status = (int8_t) (i == 0 ? 4 : -1);
  }
}

static void build_int16_multi_array (void *p) {
  std_msgs_msg_dds__Int16MultiArray_ *m = p;
  m->layout.dim._length = m->layout.dim._maximum = 1;
  m->layout.dim._buffer = dds_alloc (sizeof (std_msgs_msg_dds__MultiArrayDimension_));
  m->layout.dim._buffer[0].label = sdup ("rows");
  m->layout.dim._buffer[0].size = 3;
  m->layout.dim._buffer[0].stride = 3;
  m->layout.dim._release = true;
  m->layout.data_offset = 1;
  m->data._length = m->data._maximum = 3;
  m->data._buffer = dds_alloc (3 * sizeof (int16_t));
  m->data._buffer[0] = -32768; m->data._buffer[1] = 0; m->data._buffer[2] = 32767;
  m->data._release = true;
}

static void build_imu (void *p) {
  sensor_msgs_msg_dds__Imu_ *m = p;
  header (&m->header);
  m->orientation.w = 1.0;
  for (int i = 0; i < 9; i++) m->orientation_covariance[i] = i * 0.5;
  m->angular_velocity.z = -0.25;
  m->linear_acceleration_covariance[8] = 3.0;
}

static const struct entry entries[] = {
  { "builtin_interfaces/msg/Time", &builtin_interfaces_msg_dds__Time__desc, NULL },
  { "std_msgs/msg/Header", &std_msgs_msg_dds__Header__desc, build_header },
  { "std_msgs/msg/ColorRGBA", &std_msgs_msg_dds__ColorRGBA__desc, NULL },
  { "std_msgs/msg/Int16MultiArray", &std_msgs_msg_dds__Int16MultiArray__desc, build_int16_multi_array },
  { "std_msgs/msg/UInt64MultiArray", &std_msgs_msg_dds__UInt64MultiArray__desc, NULL },
  { "geometry_msgs/msg/Pose", &geometry_msgs_msg_dds__Pose__desc, NULL },
  { "sensor_msgs/msg/Image", &sensor_msgs_msg_dds__Image__desc, NULL },
  { "sensor_msgs/msg/PointCloud2", &sensor_msgs_msg_dds__PointCloud2__desc, build_point_cloud2 },
  { "sensor_msgs/msg/JointState", &sensor_msgs_msg_dds__JointState__desc, build_joint_state },
  { "sensor_msgs/msg/Imu", &sensor_msgs_msg_dds__Imu__desc, build_imu },
  { "nav_msgs/msg/OccupancyGrid", &nav_msgs_msg_dds__OccupancyGrid__desc, NULL },
  { "action_msgs/msg/GoalStatusArray", &action_msgs_msg_dds__GoalStatusArray__desc, build_goal_status_array },
};

static void print_payload (const void *sample, const dds_topic_descriptor_t *desc) {
  dds_ostream_t os;
  dds_ostream_init (&os, 0, XCDR1);
  dds_stream_write (&os, sample, desc->m_ops);
  printf ("00010000");
  for (uint32_t i = 0; i < os.m_index; i++) printf ("%02x", os.m_buffer[i]);
  printf ("\n");
  dds_ostream_fini (&os);
}

static int hexval (int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

int main (int argc, char **argv) {
  if (argc != 3) { fprintf (stderr, "usage: %s decode|encode TYPE\n", argv[0]); return 1; }
  const struct entry *e = NULL;
  for (size_t i = 0; i < sizeof (entries) / sizeof (entries[0]); i++)
    if (strcmp (entries[i].name, argv[2]) == 0) e = &entries[i];
  if (e == NULL) { fprintf (stderr, "unknown type %s\n", argv[2]); return 1; }
  void *sample = dds_alloc (e->desc->m_size); /* zeroed */

  if (strcmp (argv[1], "encode") == 0) {
    if (e->build == NULL) { fprintf (stderr, "no builder for %s\n", e->name); return 1; }
    e->build (sample);
    print_payload (sample, e->desc);
    dds_stream_free_sample (sample, e->desc->m_ops);
    dds_free (sample);
    return 0;
  }

  size_t cap = 1 << 16, n = 0;
  unsigned char *buf = malloc (cap);
  int c, hi = -1;
  while ((c = getchar ()) != EOF) {
    int v = hexval (c);
    if (v < 0) continue;
    if (hi < 0) { hi = v; continue; }
    if (n == cap) buf = realloc (buf, cap *= 2);
    buf[n++] = (unsigned char) (hi << 4 | v);
    hi = -1;
  }
  if (n < 4 || buf[0] != 0 || buf[1] != 1) { fprintf (stderr, "not a CDR_LE payload\n"); return 2; }
  uint32_t off = 0, size = (uint32_t) (n - 4);
  if (dds_stream_normalize_data ((char *) buf + 4, &off, size, false, XCDR1, e->desc->m_ops) == NULL) {
    fprintf (stderr, "dds_stream_normalize_data rejected the payload\n");
    return 2;
  }
  dds_istream_t is;
  dds_istream_init (&is, size, buf + 4, XCDR1);
  dds_stream_read (&is, sample, e->desc->m_ops);
  dds_istream_fini (&is);
  print_payload (sample, e->desc);
  dds_stream_free_sample (sample, e->desc->m_ops);
  dds_free (sample);
  free (buf);
  return 0;
}
