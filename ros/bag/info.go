package bag

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// IsServiceEvent reports whether a topic carries service events (rosbag2
// records services as "<service>/_service_event" topics of "*_Event"
// types); `ros2 bag info` lists them apart.
func IsServiceEvent(topic, typ string) bool {
	return strings.HasSuffix(topic, "/_service_event") && len(topic) > len("/_service_event") &&
		strings.Contains(typ, "/srv/") && strings.HasSuffix(typ, "_Event")
}

// FormatInfo returns what `ros2 bag info` prints for a bag's metadata
// (rosbag2_py's format_bag_meta_data), with times in loc (time.Local in
// the CLI, as ros2 prints them) and topics sorted by name.
func FormatInfo(m *Metadata, loc *time.Location) string {
	var b strings.Builder
	const indent = "                   " // the longest field name, plus one space
	distro := m.ROSDistro
	if distro == "" {
		distro = "unknown"
	}
	var services []TopicInfo
	var serviceEvents uint64
	var topics []TopicInfo
	for _, t := range m.Topics {
		if IsServiceEvent(t.Name, t.Type) {
			services = append(services, t)
			serviceEvents += t.MessageCount
		} else {
			topics = append(topics, t)
		}
	}
	slices.SortStableFunc(topics, func(a, b TopicInfo) int { return strings.Compare(a.Name, b.Name) })
	slices.SortStableFunc(services, func(a, b TopicInfo) int { return strings.Compare(a.Name, b.Name) })
	b.WriteString("\n")
	b.WriteString("Files:             ")
	if len(m.RelativeFilePaths) == 0 {
		b.WriteString("\n")
	}
	for i, p := range m.RelativeFilePaths {
		if i > 0 {
			b.WriteString(indent)
		}
		b.WriteString(p + "\n")
	}
	start := m.StartingTime.UnixNano()
	if m.StartingTime.IsZero() {
		start = 0
	}
	end := start + int64(m.Duration)
	fmt.Fprintf(&b, "Bag size:          %s\n", FormatSize(m.BagSize))
	fmt.Fprintf(&b, "Storage id:        %s\n", m.StorageIdentifier)
	fmt.Fprintf(&b, "ROS Distro:        %s\n", distro)
	fmt.Fprintf(&b, "Duration:          %ss\n", secondsString(int64(m.Duration)))
	fmt.Fprintf(&b, "Start:             %s\n", formatTimePoint(start, loc))
	fmt.Fprintf(&b, "End:               %s\n", formatTimePoint(end, loc))
	fmt.Fprintf(&b, "Messages:          %d\n", m.MessageCount-serviceEvents)
	b.WriteString("Topic information: ")
	if len(topics) == 0 {
		b.WriteString("\n")
	}
	for i, t := range topics {
		if i > 0 {
			b.WriteString(indent)
		}
		fmt.Fprintf(&b, "Topic: %s | Type: %s | Count: %d | Serialization Format: %s\n", t.Name, t.Type, t.MessageCount, t.SerializationFormat)
	}
	fmt.Fprintf(&b, "Service:           %d\n", len(services))
	b.WriteString("Service information: ")
	for i, t := range services {
		if i > 0 {
			b.WriteString(indent + "  ")
		}
		name := strings.TrimSuffix(t.Name, "/_service_event")
		typ := strings.TrimSuffix(t.Type, "_Event")
		fmt.Fprintf(&b, "Service: %s | Type: %s | Event Count: %d | Serialization Format: %s\n", name, typ, t.MessageCount, t.SerializationFormat)
	}
	return b.String()
}

// secondsString formats nanoseconds as seconds with nine decimals, as
// rosbag2 does ("2.999759390").
func secondsString(ns int64) string {
	sec := ns / int64(time.Second)
	frac := ns % int64(time.Second)
	if frac < 0 {
		frac = -frac
	}
	return fmt.Sprintf("%d.%09d", sec, frac)
}

// formatTimePoint formats a time as rosbag2 does: "Jun 13 2024
// 15:48:56.064587570 (1718286536.064587570)", local time.
func formatTimePoint(ns int64, loc *time.Location) string {
	t := time.Unix(0, ns).In(loc)
	return fmt.Sprintf("%s.%09d (%s)", t.Format("Jan _2 2006 15:04:05"), ns%int64(time.Second), secondsString(ns))
}

// FormatSize formats a size in bytes as rosbag2 does: "512 B", "1.5 MiB".
func FormatSize(n uint64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	size := float64(n)
	i := 0
	for size >= 1024 && i < 4 {
		size /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f %s", size, units[i])
	}
	return fmt.Sprintf("%.1f %s", size, units[i])
}
