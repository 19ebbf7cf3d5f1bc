package names

import (
	"fmt"
	"strings"
)

// Expand returns the fully qualified form of name for a node, as
// rcl_expand_topic_name does: "~" and "~/x" become the node's private names
// ("/ns/node", "/ns/node/x"), the substitutions {node}, {ns} and {namespace}
// are replaced, and a relative name is put under the namespace. The result
// is checked with ValidateFullName. node and ns must be valid (see
// ValidateNodeName and ValidateNamespace).
//
// As in rcl, a namespace substituted after a '/' makes a "//", and the
// name is rejected: "/foo/{ns}" and, in the root namespace, "{ns}/x" are
// invalid.
func Expand(name, node, ns string) (string, error) {
	if err := ValidateName(name); err != nil {
		return "", err
	}
	if err := ValidateNodeName(node); err != nil {
		return "", err
	}
	if err := ValidateNamespace(ns); err != nil {
		return "", err
	}
	out := name
	if out[0] == '~' {
		out = join(join(ns, node), strings.TrimPrefix(out[1:], "/"))
	}
	if strings.IndexByte(out, '{') >= 0 {
		var b strings.Builder
		for i := 0; i < len(out); {
			c := out[i]
			if c != '{' {
				b.WriteByte(c)
				i++
				continue
			}
			end := strings.IndexByte(out[i:], '}') + i
			key := out[i+1 : end]
			var val string
			switch key {
			case "node":
				val = node
			case "ns", "namespace":
				val = ns
			default:
				return "", &Error{Kind: "topic or service name", Name: name, Index: strings.Index(name, "{"+key+"}"),
					Reason: fmt.Sprintf("unknown substitution {%s} (known: {node}, {ns}, {namespace})", key)}
			}
			b.WriteString(val)
			i = end + 1
		}
		out = b.String()
	}
	if out == "" || out[0] != '/' {
		out = join(ns, out)
	}
	if err := ValidateFullName(out); err != nil {
		if e, ok := err.(*Error); ok && out != name {
			e.Reason = fmt.Sprintf("%s once expanded to %q", e.Reason, out)
			e.Name = name
			e.Index = -1
			return "", e
		}
		return "", err
	}
	return out, nil
}

// join puts a relative name under a namespace.
func join(ns, rel string) string {
	if rel == "" {
		return ns
	}
	if ns == "/" {
		return "/" + rel
	}
	return ns + "/" + rel
}
