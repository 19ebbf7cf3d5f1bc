"""An independent tf2 for ros/tf2's oracle test (oracle_py_test.go), on
scipy.spatial.transform (Rotation, Slerp) and numpy.

Reads one JSON object on stdin:
  frames:  [{name, parent, static, samples: [{stamp (ns), t: [x,y,z], q: [x,y,z,w]}]}]
           (parents fixed over time; the root is the one parent that is no
           frame)
  lookups: [{target, source, time (ns, 0 for the latest common time)}]
  full:    [{target, target_time, source, source_time, fixed}]
  ops:     [{a: {t, q}, b: {t, q}, p: [x,y,z], r: ratio}]
and prints one JSON object:
  lookups: [{t, q, stamp}], full: [{t, q}],
  ops: [{compose, inverse, interpolate: {t, q}, point, vector, pose: {p, q},
         rpy: [r, p, y], from_rpy: q}]
"""
import json
import sys

import numpy as np
from scipy.spatial.transform import Rotation, Slerp


class Pose:
    def __init__(self, t, r):
        self.t = np.asarray(t, dtype=float)
        self.r = r

    def __mul__(self, o):  # self after o
        return Pose(self.r.apply(o.t) + self.t, self.r * o.r)

    def inv(self):
        ri = self.r.inv()
        return Pose(-ri.apply(self.t), ri)

    def out(self):
        return {'t': list(self.t), 'q': list(self.r.as_quat())}


def ident():
    return Pose([0, 0, 0], Rotation.identity())


class Tree:
    def __init__(self, frames):
        self.frames = {f['name']: f for f in frames}
        for f in frames:
            f['samples'].sort(key=lambda s: s['stamp'])

    def link(self, name, stamp):
        f = self.frames[name]
        s = f['samples']
        if f['static']:
            return Pose(s[-1]['t'], Rotation.from_quat(s[-1]['q']))
        for a, b in zip(s, s[1:]):
            if a['stamp'] == stamp:
                return Pose(a['t'], Rotation.from_quat(a['q']))
            if a['stamp'] < stamp < b['stamp']:
                r = (stamp - a['stamp']) / (b['stamp'] - a['stamp'])
                t = (1 - r) * np.asarray(a['t']) + r * np.asarray(b['t'])
                rot = Slerp([0.0, 1.0], Rotation.from_quat([a['q'], b['q']]))([r])[0]
                return Pose(t, rot)
        if s[-1]['stamp'] == stamp:
            return Pose(s[-1]['t'], Rotation.from_quat(s[-1]['q']))
        raise ValueError(f'{name}: no data at {stamp}')

    def path(self, name):
        out = [name]
        while out[-1] in self.frames:
            out.append(self.frames[out[-1]]['parent'])
        return out  # name ... root

    def up_to(self, name, ancestor, stamp):
        """The pose of name in ancestor, composed link by link."""
        p = ident()
        while name != ancestor:
            p = self.link(name, stamp) * p
            name = self.frames[name]['parent']
        return p

    def common(self, target, source):
        pt, ps = self.path(target), self.path(source)
        return next(f for f in ps if f in pt), pt, ps

    def latest_common(self, target, source):
        common, pt, ps = self.common(target, source)
        links = ps[:ps.index(common)] + pt[:pt.index(common)]
        stamps = [self.frames[f]['samples'][-1]['stamp'] for f in links if not self.frames[f]['static']]
        return min(stamps) if stamps else 0

    def lookup(self, target, source, stamp):
        if stamp == 0:
            stamp = self.latest_common(target, source)
        common, _, _ = self.common(target, source)
        return self.up_to(target, common, stamp).inv() * self.up_to(source, common, stamp), stamp


def main():
    req = json.load(sys.stdin)
    tree = Tree(req['frames'])
    out = {'lookups': [], 'full': [], 'ops': []}
    for q in req['lookups']:
        p, stamp = tree.lookup(q['target'], q['source'], q['time'])
        out['lookups'].append(dict(p.out(), stamp=stamp))
    for q in req['full']:
        src_in_fixed, _ = tree.lookup(q['fixed'], q['source'], q['source_time'])
        fixed_in_tgt, _ = tree.lookup(q['target'], q['fixed'], q['target_time'])
        out['full'].append((fixed_in_tgt * src_in_fixed).out())
    for o in req['ops']:
        a = Pose(o['a']['t'], Rotation.from_quat(o['a']['q']))
        b = Pose(o['b']['t'], Rotation.from_quat(o['b']['q']))
        p = np.asarray(o['p'])
        r = o['r']
        interp = Pose((1 - r) * a.t + r * b.t, Slerp([0.0, 1.0], Rotation.from_quat([o['a']['q'], o['b']['q']]))([r])[0])
        rpy = a.r.as_euler('xyz')  # roll about X, pitch about Y, yaw about Z, fixed axes
        out['ops'].append({
            'compose': (a * b).out(),
            'inverse': a.inv().out(),
            'interpolate': interp.out(),
            'point': list(a.r.apply(p) + a.t),
            'vector': list(a.r.apply(p)),
            'pose': {'p': list(a.r.apply(b.t) + a.t), 'q': list((a.r * b.r).as_quat())},
            'rpy': list(rpy),
            'from_rpy': list(Rotation.from_euler('xyz', rpy).as_quat()),
        })
    json.dump(out, sys.stdout)


if __name__ == '__main__':
    main()
