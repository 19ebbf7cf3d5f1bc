package rtps

import (
	"fmt"
	"slices"
)

// Compatible reports whether a writer offering offered can match a reader
// requesting requested, and if not, why: the reason starts with the name
// of the failing policy in lower case ("reliability", "durability",
// "deadline", "latency budget", "liveliness", "ownership", "destination
// order", "partition") and a colon. The
// offer must be at least as reliable and as durable, have a deadline,
// latency budget and liveliness lease no longer and a liveliness kind no
// weaker, the same ownership, a destination order no weaker, and a
// partition in common (an empty list is the default partition ""; names
// may use the wildcards * and ?).
func Compatible(offered, requested QoS) (ok bool, why string) {
	switch {
	case offered.Reliability < requested.Reliability:
		return false, "reliability: BEST_EFFORT offered, RELIABLE requested"
	case offered.Durability < requested.Durability:
		return false, fmt.Sprintf("durability: %v offered, %v requested", offered.Durability, requested.Durability)
	case offered.Deadline > requested.Deadline:
		return false, fmt.Sprintf("deadline: period %v offered, %v requested", offered.Deadline, requested.Deadline)
	case offered.LatencyBudget > requested.LatencyBudget:
		return false, fmt.Sprintf("latency budget: %v offered, %v requested", offered.LatencyBudget, requested.LatencyBudget)
	case offered.Liveliness < requested.Liveliness:
		return false, fmt.Sprintf("liveliness: %v offered, %v requested", offered.Liveliness, requested.Liveliness)
	case offered.LivelinessLease > requested.LivelinessLease:
		return false, fmt.Sprintf("liveliness: lease %v offered, %v requested", offered.LivelinessLease, requested.LivelinessLease)
	case offered.Ownership != requested.Ownership:
		return false, fmt.Sprintf("ownership: %v offered, %v requested", offered.Ownership, requested.Ownership)
	case offered.DestinationOrder < requested.DestinationOrder:
		return false, fmt.Sprintf("destination order: %v offered, %v requested", offered.DestinationOrder, requested.DestinationOrder)
	case !partitionsMatch(offered.Partition, requested.Partition):
		return false, fmt.Sprintf("partition: %q offered, %q requested", offered.Partition, requested.Partition)
	}
	return true, ""
}

// CompatibleRepresentation reports whether a writer announcing offered can
// match a reader accepting requested (the reason starts with "data
// representation:"): the writer's first representation
// must be in the reader's list, an absent or empty list meaning XCDR1.
func CompatibleRepresentation(offered, requested []int16) (ok bool, why string) {
	w := XCDR1
	if len(offered) > 0 {
		w = offered[0]
	}
	if len(requested) == 0 {
		requested = []int16{XCDR1}
	}
	if !slices.Contains(requested, w) {
		return false, fmt.Sprintf("data representation: %d offered, %v accepted", w, requested)
	}
	return true, ""
}

// EndpointsCompatible applies Compatible and CompatibleRepresentation to a
// writer and a reader. Topic and type names are the caller's to compare.
func EndpointsCompatible(w, r *EndpointData) (ok bool, why string) {
	if ok, why = Compatible(w.QoS, r.QoS); !ok {
		return ok, why
	}
	return CompatibleRepresentation(w.DataRepresentation, r.DataRepresentation)
}

// partitionsMatch reports whether two partition lists share a name.
func partitionsMatch(a, b []string) bool {
	if len(a) == 0 {
		a = []string{""}
	}
	if len(b) == 0 {
		b = []string{""}
	}
	for _, x := range a {
		for _, y := range b {
			if partitionMatch(x, y) {
				return true
			}
		}
	}
	return false
}

// partitionMatch matches two partition names, either of which (not both)
// may hold wildcards.
func partitionMatch(a, b string) bool {
	wa, wb := isWildcard(a), isWildcard(b)
	switch {
	case wa && wb:
		return a == b
	case wa:
		return globMatch(a, b)
	case wb:
		return globMatch(b, a)
	}
	return a == b
}

func isWildcard(s string) bool {
	for i := range len(s) {
		if s[i] == '*' || s[i] == '?' {
			return true
		}
	}
	return false
}

// globMatch matches s against pattern with * (any run) and ? (any byte).
func globMatch(pattern, s string) bool {
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == s[i]):
			p++
			i++
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
