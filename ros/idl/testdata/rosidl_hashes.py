"""Reference RIHS01 hashes computed by ROS 2's own Python tools.

Usage:
  rosidl_hashes.py generate ROOT.. describe and hash every .msg/.srv/.action
                                   file under ROOT/<pkg>/{msg,srv,action}/
                                   with rosidl_adapter (.msg -> .idl),
                                   rosidl_parser and
                                   rosidl_generator_type_description
  rosidl_hashes.py installed PKG..  read the hashes that the installed ROS 2
                                   packages ship in share/<pkg>/**/*.json
  rosidl_hashes.py parse           parse each [kind, text] of a JSON list
                                   read from stdin (kind msg, srv or action)
                                   with rosidl_adapter's parser

generate prints one JSON object {"pkg/ns/Name": {"hash": "RIHS01_...",
"description": individual type description with default values}};
installed prints one {"pkg/ns/Name": "RIHS01_..."}; parse prints a JSON
list with, per input, either {"error": text} or {"parts": [per message of
the input: {"fields": [[type, name, default]...], "constants": [[type, name,
value]...]}]}, with values spelled by canonical().
"""
import contextlib
import io
import json
import pathlib
import sys
import sysconfig
import tempfile


def generate(roots):
    from rosidl_adapter.action import convert_action_to_idl
    from rosidl_adapter.msg import convert_msg_to_idl
    from rosidl_adapter.srv import convert_srv_to_idl
    from rosidl_generator_type_description import (
        add_action, add_msg, add_srv, calculate_type_hash,
        extract_full_type_description, serialize_individual_type_description)
    from rosidl_parser import definition
    from rosidl_parser.parser import parse_idl_file

    convert = {'.msg': convert_msg_to_idl, '.srv': convert_srv_to_idl,
               '.action': convert_action_to_idl}
    individual = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        paths = [(root, path) for root in map(pathlib.Path, roots)
                 for path in sorted(root.resolve().glob('*/*/*'))]
        for root, path in paths:
            root = root.resolve()
            if path.suffix not in convert or path.parent.name != path.suffix[1:]:
                continue
            pkg = path.parent.parent.name
            out_dir = tmp / pkg / path.parent.name
            out_dir.mkdir(parents=True, exist_ok=True)
            with contextlib.redirect_stdout(io.StringIO()):
                idl = convert[path.suffix](root / pkg, pkg, path.relative_to(root / pkg), out_dir)
            locator = definition.IdlLocator(tmp, idl.relative_to(tmp))
            for el in parse_idl_file(locator).content.elements:
                if isinstance(el, definition.Message):
                    add_msg(el, individual)
                elif isinstance(el, definition.Service):
                    add_srv(el, individual)
                elif isinstance(el, definition.Action):
                    add_action(el, individual)
    serialized = {name: serialize_individual_type_description(t.namespaced_type, t.members)
                  for name, t in individual.items()}
    return {name: {'hash': calculate_type_hash(extract_full_type_description(name, serialized)),
                   'description': serialized[name]}
            for name in sorted(individual)}


def installed(pkgs):
    share = pathlib.Path(sysconfig.get_path('data')) / 'share'
    hashes = {}
    for pkg in pkgs:
        for path in sorted((share / pkg).glob('*/*.json')):
            if path.parent.name not in ('msg', 'srv', 'action'):
                continue
            for entry in json.loads(path.read_text())['type_hashes']:
                hashes[entry['type_name']] = entry['hash_string']
    return hashes


def canonical(value):
    """Spell a parsed value in JSON without loss: floats in hex."""
    if isinstance(value, list):
        return [canonical(v) for v in value]
    if isinstance(value, bool):
        return value
    if isinstance(value, float):
        return {'f': value.hex()}
    if isinstance(value, int):
        return {'i': str(value)}
    return {'s': value}


def describe_message(msg):
    return {
        'fields': [[str(f.type), f.name, None if f.default_value is None
                    else canonical(f.default_value)] for f in msg.fields],
        'constants': [[c.type, c.name, canonical(c.value)] for c in msg.constants],
    }


def parse(inputs):
    from rosidl_adapter.parser import (
        parse_action_string, parse_message_string, parse_service_string)
    out = []
    for kind, text in inputs:
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                if kind == 'msg':
                    parts = [parse_message_string('pkg', 'Msg', text)]
                elif kind == 'srv':
                    srv = parse_service_string('pkg', 'Srv', text)
                    parts = [srv.request, srv.response]
                else:
                    action = parse_action_string('pkg', 'Act', text)
                    parts = [action.goal, action.result, action.feedback]
        except Exception as e:  # noqa: B902: any rejection counts
            out.append({'error': f'{type(e).__name__}: {e}'})
            continue
        out.append({'parts': [describe_message(m) for m in parts]})
    return out


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == 'generate':
        result = generate(sys.argv[2:])
    elif len(sys.argv) >= 2 and sys.argv[1] == 'installed':
        result = installed(sys.argv[2:])
    elif len(sys.argv) == 2 and sys.argv[1] == 'parse':
        json.dump(parse(json.load(sys.stdin)), sys.stdout, indent=1)
        return
    else:
        sys.exit(__doc__)
    json.dump(result, sys.stdout, indent=1, sort_keys=True)


if __name__ == '__main__':
    main()
