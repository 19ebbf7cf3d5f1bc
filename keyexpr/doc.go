// Package keyexpr implements Zenoh 1.x key expressions: the '/'-separated
// addresses that name keys and sets of keys.
//
// A key expression is a non-empty UTF-8 string of non-empty chunks separated
// by '/', with no leading or trailing '/'. The characters '#' and '?' are
// forbidden and '$' may only appear as the sub-chunk wildcard "$*". Three
// wildcards exist:
//
//   - "*" is a whole chunk that matches exactly one chunk;
//   - "**" is a whole chunk that matches zero or more chunks;
//   - "$*" inside a chunk matches any substring of that chunk (possibly empty),
//     so "ab$*" matches "ab" and "abc" but not "ab/c".
//
// A chunk that starts with '@' is verbatim: it matches only a chunk that is
// byte for byte the same. No wildcard ever matches a verbatim chunk, so "**"
// does not match "@admin/x" and "*" does not match "@admin".
//
// Key expressions must be canonical, so that two equivalent expressions are
// equal strings. The canonical form replaces every run of "$*" inside a chunk
// by a single "$*", a chunk that is only "$*" by "*", and a run of wildcard
// chunks ("*" and "**" in any order) by its "*" chunks followed by one "**"
// when the run held any ("**/**" becomes "**", "**/*" becomes "*/**").
// [New] and [Validate] reject non-canonical input and say what its canonical
// form is; [Autocanonize] and [Canonize] canonize first.
//
// [Intersects] and [Includes] (and the methods of the same names) follow the
// Zenoh 1.x reference implementation (the zenoh-keyexpr crate) exactly,
// including its conservative answers: Zenoh never lets a "*" include a "**",
// so Includes("*/**", "**") is false although both denote the same keys, and
// so it is here. Both functions work on strings, without allocating in all
// but one rare shape, in time linear in their inputs in the common cases and
// O(n·m) at worst (see [Intersects]), for use on every message, even with
// hostile expressions from remote peers.
//
// Key expressions are limited to [MaxLen] bytes and [MaxChunks] chunks:
// [Validate], [New], [Canonize] and [Autocanonize] reject longer ones with
// an error wrapping [ErrTooLong], because the Rust Zenoh stack crashes on
// keys of 8,001 chunks or more, and to bound the work on expressions from
// remote peers. [CheckLimits] checks only the limits.
//
// One deliberate difference: Zenoh 1.10 mis-canonizes a run of "$*" that
// does not start its chunk (it panics on "a$*$*", rejects "a$*$*$*b" and
// turns "a$*$*xy$*b" into "a$*$*b"); this package collapses every run to a
// single "$*", as the key-expression specification says.
package keyexpr
