"""Key-expression oracle: answers with the Rust zenoh-keyexpr crate, through
the eclipse-zenoh Python binding, for the Go keyexpr interop test.

Reads one JSON object from stdin:
  {"exprs": [str, ...], "pairs": [[a, b], ...]}
Writes one JSON object to stdout:
  {"exprs": [{"valid": bool, "canon": str | null}, ...],
   "pairs": [{"intersects": bool, "includes": bool}, ...]}
"canon" is null when autocanonize fails (an error or a panic inside Rust).
"""
import json
import sys

import zenoh


def expr_info(s):
    try:
        zenoh.KeyExpr(s)
        valid = True
    except BaseException:  # Rust panics surface as BaseException
        valid = False
    try:
        canon = str(zenoh.KeyExpr.autocanonize(s))
    except BaseException:
        canon = None
    return {"valid": valid, "canon": canon}


def pair_info(a, b):
    ka, kb = zenoh.KeyExpr(a), zenoh.KeyExpr(b)
    return {"intersects": ka.intersects(kb), "includes": ka.includes(kb)}


def main():
    req = json.load(sys.stdin)
    out = {
        "exprs": [expr_info(s) for s in req["exprs"]],
        "pairs": [pair_info(a, b) for a, b in req["pairs"]],
    }
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
