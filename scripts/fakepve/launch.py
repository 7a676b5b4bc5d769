"""Starts fakepve for Warden's tests: API tokens, guests, a TLS certificate, and
a small control endpoint through which a test causes faults while it runs.

    python launch.py --token 'warden@pve!ops=s3cret' --generate 500 --nodes 3

When the fake listens, one JSON line goes to stdout:
    {"url": "https://127.0.0.1:PORT", "control": "http://127.0.0.1:PORT2",
     "fingerprint": "AB:CD:...", "ca_file": "/tmp/.../fakepve.crt"}
(fingerprint: SHA-256 of the served certificate, as PVE's GUI shows it).

Control: POST JSON {"op": NAME, ...} to the control URL; the answer is
{"ok": true, "result": ...} or {"ok": false, "error": TEXT}. Ops below (OPS).
fakepve itself is AGPL and installed in a venv by setup.sh; never vendored.
"""

import argparse
import asyncio
import hashlib
import json
import sys
import tempfile

from aiohttp import web

from fakepve import FakePve
from fakepve.certs import make_cert

# Guest attributes a test may set (fakepve's own fault knobs).
GUEST_ATTRS = ('shutdown_secs', 'start_secs', 'stop_secs', 'start_error', 'ha_state', 'agent',
               'agent_hangs', 'acpi', 'status', 'stats')


def generate(pve, count, nodes):
    """count guests spread over nodes pve1..pveN: every third an LXC, every tenth stopped, tags on some."""
    for n in range(1, nodes + 1):
        pve.add_node('pve{0}'.format(n))
    for i in range(count):
        vmid = 100 + i
        node = 'pve{0}'.format(i % nodes + 1)
        status = 'stopped' if i % 10 == 9 else 'running'
        config = {'tags': 'gen;batch{0}'.format(i % 5)} if i % 4 == 0 else {}
        if i % 3 == 2:
            pve.add_ct(vmid, 'ct-{0}'.format(vmid), node=node, status=status, config=config)
        else:
            pve.add_vm(vmid, 'vm-{0}'.format(vmid), node=node, status=status, config=config)


def guest(pve, body):
    found = pve.guest(int(body['vmid']))
    if found is None:
        raise KeyError('no guest {0}'.format(body['vmid']))
    return found


def op_add_vm(pve, body):
    vm = pve.add_vm(int(body['vmid']), body['name'], node=body.get('node', 'pve1'),
                    status=body.get('status', 'stopped'), config=body.get('config', {}),
                    template=body.get('template', False), lock=body.get('lock'))
    return vm.vmid


def op_add_ct(pve, body):
    ct = pve.add_ct(int(body['vmid']), body['name'], node=body.get('node', 'pve1'),
                    status=body.get('status', 'stopped'), config=body.get('config', {}),
                    template=body.get('template', False), lock=body.get('lock'))
    return ct.vmid


def op_set(pve, body):
    """Set fakepve attributes of a guest: {"vmid", "attrs": {name: value}}."""
    target = guest(pve, body)
    for name, value in body['attrs'].items():
        if name not in GUEST_ATTRS:
            raise KeyError('attribute {0} is not settable; known: {1}'.format(name, ', '.join(GUEST_ATTRS)))
        setattr(target, name, value)
    return None


def op_lock(pve, body):
    target = guest(pve, body)
    target.lock = body.get('lock', 'backup')
    if hasattr(target, 'config'):
        target.config['lock'] = target.lock
    return None


def op_unlock(pve, body):
    pve.unlock(int(body['vmid']))
    return None


def op_move(pve, body):
    """The guest now lives on another node (what a finished migration leaves behind)."""
    target = guest(pve, body)
    pve.nodes.setdefault(body['node'], {'online': True})
    target.node = body['node']
    return None


def op_quorum(pve, body):
    if body['quorate']:
        pve.regain_quorum()
    else:
        pve.lose_quorum()
    return None


def op_node_online(pve, body):
    pve.set_node_offline(body['node'], offline=not body['online'])
    return None


def op_fail(pve, body):
    pve.fail(body['method'], body['suffix'], status=body.get('status'), message=body.get('message'),
             error=body.get('error'), times=body.get('times'))
    return None


def op_clear_failures(pve, body):
    pve.failures.clear()
    return None


def op_store_backup(pve, body):
    """A backup archive on a storage: {"storage", "name", "size", "ctime"?}."""
    pve.store_file(body['storage'], body['name'], int(body['size']), content='backup')
    if body.get('ctime') is not None:
        volumes = pve.storages[body['storage']]['volumes']
        volumes['backup/' + body['name']]['ctime'] = int(body['ctime'])
    return None


def op_grant(pve, body):
    """Turn on permissions (the first grant does) and give the token or user privileges on a path."""
    pve.grant(body['user'], body['path'], *body['privs'])
    return None


def op_time_scale(pve, body):
    pve.time_scale = float(body['time_scale'])
    return None


def op_rrd(pve, body):
    """Canned rrddata rows for paths ending in `suffix` (`/nodes/pve1/qemu/101/rrddata`), any
    timeframe and consolidation: {"suffix", "rows": [{"time": ..., "cpu": ...}, ...]}."""
    pve.canned_rrd[body['suffix']] = body['rows']
    return None


def install_canned_rrd(pve):
    """rrddata has no hand-written route in fakepve (its answers are built from the schema):
    answer it from pve.canned_rrd when a test put rows there."""
    pve.canned_rrd = {}
    synthesise = pve.synthesise

    async def with_canned_rrd(match, method, info, user, values):
        if method == 'GET' and match.template.endswith('/rrddata'):
            path = match.template.format(**match.params)
            for suffix, rows in pve.canned_rrd.items():
                if path.endswith(suffix):
                    return rows
        return await synthesise(match, method, info, user, values)
    pve.synthesise = with_canned_rrd


def op_remove(pve, body):
    """The guest is gone (deleted), so its vmid may be given to another guest."""
    target = guest(pve, body)
    if target in pve.vms:
        pve.vms.remove(target)
    else:
        pve.cts.remove(target)
    return None


def can_snapshot(pve, kind, node, vmid):
    """PVE's has_feature('snapshot') for a guest: every volume on storage that snapshots."""
    if kind == 'qemu':
        return pve._qm_can_snapshot(pve.find(node, vmid).config)
    from fakepve.lxc import SNAPSHOT_STORAGE
    ct = pve.ct(int(vmid))
    if ct is None or ct.node != node:
        from fakepve.errors import PveError
        raise PveError(500, "Configuration file 'nodes/{0}/lxc/{1}.conf' does not exist".format(node, vmid))
    return not any(pve.storages.get(m['volume'].split(':')[0], {}).get('type') not in SNAPSHOT_STORAGE
                   and m['volume'].split(':')[0] in pve.storages for _, m in ct.volumes())


def install_feature(pve):
    """GET /nodes/{node}/{qemu|lxc}/{vmid}/feature?feature=snapshot has no hand-written route in
    fakepve: answer it from the guest's volumes as PVE's has_feature does."""
    synthesise = pve.synthesise

    async def with_feature(match, method, info, user, values):
        if method == 'GET' and match.template.endswith('/feature'):
            params = match.params
            kind = 'lxc' if '/lxc/' in match.template else 'qemu'
            node = params.get('node')
            has = values.get('feature', 'snapshot') != 'snapshot' or can_snapshot(pve, kind, node, params.get('vmid'))
            return {'hasFeature': 1 if has else 0, 'nodes': [node] if has else []}
        return await synthesise(match, method, info, user, values)
    pve.synthesise = with_feature


def op_requests(pve, body):
    """The requests seen so far, as [method, path] pairs (bodies left out)."""
    return [[method, path] for method, path, _ in pve.requests]


OPS = {
    'add_vm': op_add_vm, 'add_ct': op_add_ct, 'set': op_set, 'lock': op_lock, 'unlock': op_unlock,
    'move': op_move, 'quorum': op_quorum, 'node_online': op_node_online, 'fail': op_fail,
    'clear_failures': op_clear_failures, 'store_backup': op_store_backup, 'grant': op_grant,
    'time_scale': op_time_scale, 'requests': op_requests, 'rrd': op_rrd, 'remove': op_remove,
}


def control_app(pve):
    async def handle(request):
        try:
            body = await request.json()
            result = OPS[body['op']](pve, body)
            return web.json_response({'ok': True, 'result': result})
        except Exception as exc:  # noqa: BLE001 - the test reads the reason
            return web.json_response({'ok': False, 'error': '{0}: {1}'.format(type(exc).__name__, exc)})
    app = web.Application()
    app.router.add_post('/', handle)
    return app


async def serve(args):
    pve = FakePve(host=args.host, port=args.port)
    pve.time_scale = args.time_scale
    install_canned_rrd(pve)
    install_feature(pve)
    for token in args.token:
        token_id, _, secret = token.partition('=')
        pve.apitokens[token_id] = secret
    if args.generate:
        generate(pve, args.generate, args.nodes)
    cert_dir = args.cert_dir or tempfile.mkdtemp(prefix='fakepve-warden-')
    certfile, keyfile, der = make_cert(cert_dir, hosts=(args.host,))
    await pve.start(certfile, keyfile)
    runner = web.AppRunner(control_app(pve))
    await runner.setup()
    site = web.TCPSite(runner, args.host, 0)
    await site.start()
    control_port = runner.addresses[0][1]
    digest = hashlib.sha256(der).hexdigest().upper()
    ready = {'url': 'https://{0}:{1}'.format(args.host, pve.port),
             'control': 'http://{0}:{1}'.format(args.host, control_port),
             'fingerprint': ':'.join(digest[i:i + 2] for i in range(0, len(digest), 2)),
             'ca_file': certfile}
    print(json.dumps(ready), flush=True)
    # Ends when the test closes our stdin (or is killed): no orphan outlives it.
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--host', default='127.0.0.1')
    parser.add_argument('--port', type=int, default=0, help='0: a free port')
    parser.add_argument('--token', action='append', default=[], help="'user@realm!id=secret', repeatable")
    parser.add_argument('--generate', type=int, default=0, help='generate this many guests')
    parser.add_argument('--nodes', type=int, default=1, help='nodes the generated guests spread over')
    parser.add_argument('--cert-dir', help='where the certificate and key go (default: a new temporary directory)')
    parser.add_argument('--time-scale', type=float, default=0.0,
                        help='real seconds per PVE second; 0 finishes tasks at once (default 0)')
    args = parser.parse_args()
    asyncio.run(serve(args))


if __name__ == '__main__':
    main()
