package names

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalidArgs is matched (errors.Is) by every error of ParseArgs.
var ErrInvalidArgs = errors.New("invalid ROS arguments")

// RuleKind says what a remapping rule renames.
type RuleKind uint8

// Kinds of remapping rules.
const (
	// RuleName renames topics and services ("from:=to").
	RuleName RuleKind = iota + 1
	// RuleTopic renames topics only ("rostopic://from:=to").
	RuleTopic
	// RuleService renames services only ("rosservice://from:=to").
	RuleService
	// RuleNodeName renames the node ("__node:=name", "__name:=name").
	RuleNodeName
	// RuleNamespace moves the node ("__ns:=/ns").
	RuleNamespace
)

// Rule is one remapping rule, as written: Match and Replacement are
// expanded for each node when the rule is applied.
type Rule struct {
	Node        string // the only node the rule applies to ("talker" or "/ns/talker"), or "" for every node
	Kind        RuleKind
	Match       string // the name to rename (RuleName, RuleTopic, RuleService)
	Replacement string
}

// Args is what ParseArgs found on a command line.
type Args struct {
	Rules   []Rule
	Enclave string   // "--enclave", "" if not given
	Other   []string // the arguments outside "--ros-args" sections, in order
	// Params are the parameter overrides ("-p", "--param") and files
	// ("--params-file"), in the order given: a later one overrides an
	// earlier one.
	Params []ParamArg
}

// ParamArg is one parameter option of a command line: a file to read or
// one override.
type ParamArg struct {
	File     string   // "--params-file FILE", read by the caller
	Override Override // "-p [node:]name:=value" when File is ""
}

// ParseArgs reads the ROS arguments of a command line (without the program
// name) as rcl_parse_arguments does: every "--ros-args" section up to "--"
// or the end. Inside a section, "-r"/"--remap" take a rule, "-e"/"--enclave"
// an enclave, "-p"/"--param" a parameter override (see ParseParamRule),
// "--params-file" a file name, kept for the caller to read; the logging
// options ("--log-level", "--log-config-file", "--log-file-name") take one
// argument, which is ignored, as are the flags "--enable-*"/"--disable-*"
// of logging; anything else is an error.
func ParseArgs(args []string) (Args, error) {
	var out Args
	in := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !in {
			if a == "--ros-args" {
				in = true
			} else {
				out.Other = append(out.Other, a)
			}
			continue
		}
		switch a {
		case "--":
			in = false
		case "--ros-args":
		case "-r", "--remap", "-e", "--enclave", "-p", "--param", "--params-file",
			"--log-level", "--log-config-file", "--log-file-name":
			if i+1 >= len(args) {
				return Args{}, fmt.Errorf("%w: %s at argument %d needs a value", ErrInvalidArgs, a, i)
			}
			i++
			v := args[i]
			switch a {
			case "-r", "--remap":
				r, err := ParseRule(v)
				if err != nil {
					return Args{}, fmt.Errorf("%w: argument %d: %w", ErrInvalidArgs, i, err)
				}
				out.Rules = append(out.Rules, r)
			case "-e", "--enclave":
				if err := ValidateNamespace(v); err != nil {
					return Args{}, fmt.Errorf("%w: enclave at argument %d: %w", ErrInvalidArgs, i, err)
				}
				out.Enclave = v
			case "-p", "--param":
				o, err := ParseParamRule(v)
				if err != nil {
					return Args{}, fmt.Errorf("%w: argument %d: %w", ErrInvalidArgs, i, err)
				}
				out.Params = append(out.Params, ParamArg{Override: o})
			case "--params-file":
				if v == "" {
					return Args{}, fmt.Errorf("%w: argument %d: empty --params-file", ErrInvalidArgs, i)
				}
				out.Params = append(out.Params, ParamArg{File: v})
			}
		default:
			if strings.HasPrefix(a, "--enable-") || strings.HasPrefix(a, "--disable-") {
				switch strings.TrimPrefix(strings.TrimPrefix(a, "--enable-"), "--disable-") {
				case "rosout-logs", "stdout-logs", "external-lib-logs":
					continue
				}
			}
			return Args{}, fmt.Errorf("%w: unknown ROS argument %q at %d", ErrInvalidArgs, a, i)
		}
	}
	return out, nil
}

// ParseRule parses one remapping rule, "[node:]from:=to", as rcl's remap
// parser does: node is a node name or a fully qualified one
// ("/ns/talker"); from is a topic or service name (relative, absolute or
// private, optionally prefixed with "rostopic://" or "rosservice://"), or
// "__node", "__name" or "__ns".
func ParseRule(s string) (Rule, error) {
	bad := func(reason string) error { return fmt.Errorf("%w: remapping rule %q: %s", ErrInvalidName, s, reason) }
	from, to, ok := strings.Cut(s, ":=")
	if !ok {
		return Rule{}, bad("missing ':='")
	}
	var r Rule
	// A node prefix ends at the first ':' that is not part of "://".
	for i := 0; i < len(from); i++ {
		if from[i] != ':' {
			continue
		}
		if strings.HasPrefix(from[i:], "://") {
			break
		}
		r.Node, from = from[:i], from[i+1:]
		validate := ValidateNodeName
		if strings.HasPrefix(r.Node, "/") {
			validate = ValidateFullName
		}
		if err := validate(r.Node); err != nil {
			return Rule{}, bad("node prefix: " + err.Error())
		}
		break
	}
	switch from {
	case "__node", "__name":
		if err := ValidateNodeName(to); err != nil {
			return Rule{}, bad(err.Error())
		}
		r.Kind, r.Replacement = RuleNodeName, to
		return r, nil
	case "__ns":
		if err := ValidateNamespace(to); err != nil {
			return Rule{}, bad(err.Error())
		}
		r.Kind, r.Replacement = RuleNamespace, to
		return r, nil
	}
	r.Kind = RuleName
	switch {
	case strings.HasPrefix(from, "rostopic://"):
		r.Kind, from = RuleTopic, strings.TrimPrefix(from, "rostopic://")
	case strings.HasPrefix(from, "rosservice://"):
		r.Kind, from = RuleService, strings.TrimPrefix(from, "rosservice://")
	}
	if strings.Contains(from, "*") {
		return Rule{}, bad("wildcards are not supported")
	}
	if strings.HasPrefix(from, "__") {
		return Rule{}, bad(fmt.Sprintf("unknown special name %q", from))
	}
	if err := ValidateName(from); err != nil {
		return Rule{}, bad("match: " + err.Error())
	}
	if err := ValidateName(to); err != nil {
		return Rule{}, bad("replacement: " + err.Error())
	}
	r.Match, r.Replacement = from, to
	return r, nil
}
