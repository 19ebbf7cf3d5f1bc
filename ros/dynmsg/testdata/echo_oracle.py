"""YAML and CDR oracle for the ros/dynmsg tests (oracle_test.go).

Reads one JSON request on stdin and writes one JSON answer on stdout:

  {"mode": "random", "types": [...], "count": N, "counts": {type: N},
   "seed": S, "options": [...]}
      builds N messages of each type (or counts[type]) with random field values (including
      the awkward ones: quotes, YAML keywords, line breaks, nan, -0.0, ...),
      serializes them with rclpy and answers
      [{"type": ..., "hex": ..., "yaml": [text for each option set],
        "csv": [ros2 topic echo --csv line for each option set],
        "repr": repr(message), as ros2 service call prints it}].

  {"mode": "echo", "cases": [{"type": ..., "hex": ...}], "options": [...]}
      deserializes each payload with rclpy and answers
      [{"type": ..., "hex": <serialized again>, "yaml": [...], "error": ...}].

An option set is {"truncate": N, "no_arr": bool, "no_str": bool, "flow":
bool}, the flags of ros2 topic echo. rosidl_runtime_py (where ros2 topic
echo's message_to_yaml lives) is not installable here, so message_to_plain
below converts a message to plain Python values the way it does (fields in
definition order, bytes as the characters of their values, numpy numbers as
Python numbers, truncation with a '...' element, the --no-arr and --no-str
placeholders), and the result goes through the same yaml.dump call;
message_to_csv likewise rebuilds its --csv conversion.
"""

import array
import importlib
import json
import math
import random
import sys
from collections import OrderedDict

import numpy
import yaml
from rosidl_parser import definition as d
from rclpy.serialization import deserialize_message, serialize_message


def _represent(dumper, data):
    return yaml.nodes.MappingNode(
        'tag:yaml.org,2002:map',
        [(dumper.represent_data(k), dumper.represent_data(v)) for k, v in data.items()])


yaml.add_representer(OrderedDict, _represent)


def lookup(full):
    pkg, ns, name = full.split('/')
    mod = importlib.import_module(f'{pkg}.{ns}')
    base, _, part = name.partition('_')
    cls = getattr(mod, base)
    if part:
        cls = getattr(cls, part)
    return cls


def type_name(t):
    if isinstance(t, d.BasicType):
        return t.typename
    if isinstance(t, d.AbstractString):
        return 'string'
    if isinstance(t, d.AbstractWString):
        return 'wstring'
    if isinstance(t, d.NamespacedType):
        return '/'.join(t.namespaced_name())
    return 'unknown'


def placeholder(value, t):
    vt = type_name(t.value_type)
    if isinstance(t, d.Array):
        return f'<array type: {vt}[{t.size}]>'
    if isinstance(t, d.BoundedSequence):
        return f'<sequence type: {vt}[{t.maximum_size}], length: {len(value)}>'
    return f'<sequence type: {vt}, length: {len(value)}>'


def plain(value, opts, slot=None):
    trunc = opts.get('truncate')
    if isinstance(value, bytes):
        text = ''.join(chr(c) for c in value)
        if trunc is not None and len(value) > trunc:
            text = ''.join(chr(c) for c in value[:trunc]) + '...'
        return text
    if isinstance(value, str):
        if opts.get('no_str'):
            return f'<string length: <{len(value)}>>'
        if trunc is not None and len(value) > trunc:
            return value[:trunc] + '...'
        return value
    if isinstance(value, (list, tuple, array.array, numpy.ndarray)):
        if opts.get('no_arr') and slot is not None:
            return placeholder(value, slot)
        items = list(value)
        cut = trunc is not None and len(items) > trunc
        if cut:
            items = items[:trunc]
        out = [plain(v, opts) for v in items]
        if cut:
            out.append('...')
        return out
    if isinstance(value, numpy.number):
        return value.item()
    if isinstance(value, (bool, int, float)):
        return value
    return message_to_plain(value, opts)


def message_to_plain(msg, opts):
    out = OrderedDict()
    for name, slot in zip(msg.get_fields_and_field_types(), msg.SLOT_TYPES):
        out[name] = plain(getattr(msg, name), opts, slot)
    return out


def csv_text(val, opts, slot=None):
    """ros2 topic echo --csv: values as Python's str, joined by commas; as in
    message_to_csv, a comma goes in only once the text so far is not empty."""
    trunc = opts.get('truncate')
    if isinstance(val, (list, tuple, array.array, numpy.ndarray)):
        if opts.get('no_arr') and slot is not None:
            return placeholder(val, slot)
        text = ''
        for i, v in enumerate(val):
            if text:
                text += ','
            if trunc is not None and i >= trunc:
                text += '...'
                break
            text += csv_text(v, opts)
        return text
    if isinstance(val, (bool, bytes, float, int, str, numpy.number)):
        if opts.get('no_str') and isinstance(val, str):
            val = f'<string length: <{len(val)}>>'
        elif isinstance(val, (bytes, str)) and trunc is not None and len(val) > trunc:
            val = val[:trunc] + (b'...' if isinstance(val, bytes) else '...')
        return str(val)
    return message_to_csv(val, opts)


def message_to_csv(msg, opts):
    text = ''
    for name, slot in zip(msg.get_fields_and_field_types(), msg.SLOT_TYPES):
        if text:
            text += ','
        text += csv_text(getattr(msg, name), opts, slot)
    return text


def to_yaml(msg, opts):
    return yaml.dump(message_to_plain(msg, opts), allow_unicode=True,
                     width=sys.maxsize, default_flow_style=bool(opts.get('flow')))


STRINGS = [
    '', 'hello', 'Hello World', 'true', 'no', 'On', 'null', '~', '1', '-2', '1.5', '1e3', '1.0e+3',
    '.inf', '0x1F', '017', '1_000', '12:30', '2001-12-14', '2001-12-14 21:59:43.10 -5', '<<', '=',
    "it's", '"quoted"', 'back\\slash', 'a: b', 'a:b', 'x:', '- item', '-item', '? q', '?q', ':',
    '#hash', 'a #b', 'a#b', '[list]', 'a, b', '{map}', '&anchor', '*alias', '!tag', '|', '>',
    '%pct', '@at', '`tick`', '---', '...', ' lead', 'trail ', ' ', '  two  ', 'line\nbreak',
    'two\n\nbreaks', 'end\n', '\nstart', 'sp \nbr', 'br\n sp', 'tab\there', 'cr\rlf', 'bell\x07',
    'esc\x1b', 'del\x7f', 'c1\x80\x9f', 'nel\x85x', 'nbsp\xa0x', 'ls\u2028x', 'bom\ufeffx',
    'é ü ñ', '日本語', 'emoji 😀', 'private\ue000', 'nonchar\ufffe', 'long ' * 30,
]
WSTRINGS = [s for s in STRINGS if all(ord(c) < 0x10000 for c in s)]
FLOATS = [0.0, -0.0, 1.0, -1.5, 0.1, 1e-5, 1.5e-7, 0.0001, 1e16, 1e15, 123456789.125, 2.5e-300,
          1.7976931348623157e308, 5e-324, math.inf, -math.inf, math.nan, 3.14159, 100.0, 1e22]


def rand_basic(rng, typename):
    if typename == 'boolean':
        return rng.random() < 0.5
    if typename == 'octet':
        return bytes([rng.choice([0, 1, 9, 10, 32, 39, 65, 127, 128, 133, 160, 200, 255, rng.randrange(256)])])
    if typename in ('float', 'double'):
        v = rng.choice(FLOATS + [rng.uniform(-1e6, 1e6), rng.uniform(-1, 1)])
        if typename == 'float' and not math.isinf(v) and abs(v) > 3.4e38:
            v = 1.0
        return v
    if typename in ('char', 'uint8', 'int8', 'uint16', 'int16', 'uint32', 'int32', 'uint64', 'int64'):
        signed = typename.startswith('int')
        bits = 8 if typename == 'char' else int(typename.lstrip('uint'))
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        return rng.choice([lo, hi, 0, 1, rng.randint(lo, hi)])
    raise ValueError(typename)


def rand_value(rng, t, depth):
    if isinstance(t, d.BasicType):
        return rand_basic(rng, t.typename)
    if isinstance(t, d.AbstractString):
        s = rng.choice(STRINGS)
        if isinstance(t, d.BoundedString):
            s = s[:t.maximum_size]
        return s
    if isinstance(t, d.AbstractWString):
        s = rng.choice(WSTRINGS)
        if isinstance(t, d.BoundedWString):
            s = s[:t.maximum_size]
        return s
    if isinstance(t, d.NamespacedType):
        cls = lookup('/'.join(t.namespaced_name()))
        return rand_message(rng, cls, depth + 1)
    if isinstance(t, d.Array):
        return [rand_value(rng, t.value_type, depth) for _ in range(t.size)]
    if isinstance(t, d.AbstractSequence):
        n = rng.choice([0, 1, 2, 5]) if depth < 2 else rng.choice([0, 1])
        if isinstance(t, d.BoundedSequence):
            n = min(n, t.maximum_size)
        return [rand_value(rng, t.value_type, depth) for _ in range(n)]
    raise ValueError(t)


def rand_message(rng, cls, depth=0):
    msg = cls()
    for name, slot in zip(msg.get_fields_and_field_types(), msg.SLOT_TYPES):
        if rng.random() < 0.15:
            continue  # keep the default
        setattr(msg, name, rand_value(rng, slot, depth))
    return msg


def main():
    req = json.load(sys.stdin)
    opts = req.get('options', [{}])
    out = []
    if req['mode'] == 'random':
        rng = random.Random(req.get('seed', 1))
        for full in req['types']:
            cls = lookup(full)
            for _ in range(req.get('counts', {}).get(full, req.get('count', 1))):
                raw = serialize_message(rand_message(rng, cls))
                msg = deserialize_message(raw, cls)
                out.append({'type': full, 'hex': raw.hex(), 'yaml': [to_yaml(msg, o) for o in opts],
                            'csv': [message_to_csv(msg, o) for o in opts], 'repr': repr(msg)})
    else:
        for c in req['cases']:
            try:
                cls = lookup(c['type'])
                msg = deserialize_message(bytes.fromhex(c['hex']), cls)
                out.append({'type': c['type'], 'hex': serialize_message(msg).hex(),
                            'yaml': [to_yaml(msg, o) for o in opts]})
            except Exception as e:  # reported to the Go side
                out.append({'type': c['type'], 'error': f'{type(e).__name__}: {e}'})
    json.dump(out, sys.stdout)


if __name__ == '__main__':
    main()
