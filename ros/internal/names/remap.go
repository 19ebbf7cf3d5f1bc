package names

// appliesTo reports whether the rule's node prefix, if any, names the node:
// by its name, or by its fully qualified name when the prefix is absolute.
func (r Rule) appliesTo(node, ns string) bool {
	switch {
	case r.Node == "":
		return true
	case r.Node[0] == '/':
		return r.Node == join(ns, node)
	}
	return r.Node == node
}

// NodeName returns the name of a node after the rules: the replacement of
// the first RuleNodeName rule that applies to the node (named node in
// namespace ns, before any renaming), or node itself.
func NodeName(rules []Rule, node, ns string) string {
	for _, r := range rules {
		if r.Kind == RuleNodeName && r.appliesTo(node, ns) {
			return r.Replacement
		}
	}
	return node
}

// Namespace returns the namespace of a node after the rules: the
// replacement of the first RuleNamespace rule that applies to node (its name
// before renaming, as rcl matches it), or ns itself.
func Namespace(rules []Rule, node, ns string) string {
	for _, r := range rules {
		if r.Kind == RuleNamespace && r.appliesTo(node, ns) {
			return r.Replacement
		}
	}
	return ns
}

// Resolve expands name for a node and applies the first rule that matches
// it, as rcl_node_resolve_name does: each rule's match is expanded for the
// node and compared with the expanded name; the replacement of the first
// match is expanded and returned. service says whether name is a service
// (for rules limited to topics or services). node is the name rules are
// matched against (rcl uses the node's final name).
func Resolve(rules []Rule, name, node, ns string, service bool) (string, error) {
	full, err := Expand(name, node, ns)
	if err != nil {
		return "", err
	}
	for _, r := range rules {
		switch r.Kind {
		case RuleName:
		case RuleTopic:
			if service {
				continue
			}
		case RuleService:
			if !service {
				continue
			}
		default:
			continue
		}
		if !r.appliesTo(node, ns) {
			continue
		}
		m, err := Expand(r.Match, node, ns)
		if err != nil || m != full {
			continue
		}
		return Expand(r.Replacement, node, ns)
	}
	return full, nil
}
