// mcp_sdk_client.mjs - the official TypeScript MCP client
// (@modelcontextprotocol/sdk, installed with the browser tests' packages)
// against `fishscale mcp IMAGE`: list the tools, call each one, send invalid
// arguments. Prints one JSON object for test_mcp_sdk.py to check.
//   node mcp_sdk_client.mjs FISHSCALE IMAGE OUTDIR
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const req = createRequire(join(here, '..', 'browser', 'package.json'));
const sdk = (p) => import(pathToFileURL(req.resolve(`@modelcontextprotocol/sdk/${p}`)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');

const [fishscale, image, outdir] = process.argv.slice(2);
const transport = new StdioClientTransport({ command: fishscale, args: ['mcp', image], env: process.env, stderr: 'ignore' });
const client = new Client({ name: 'fishscale-test', version: '1.0.0' });
await client.connect(transport);
const report = { server: client.getServerVersion(), protocol: transport._protocolVersion || null, calls: {} };

const { tools } = await client.listTools();
report.tools = tools.map((t) => ({ name: t.name, annotations: t.annotations || null }));

async function call(name, args) {
  try {
    const r = await client.callTool({ name, arguments: args });
    const text = (r.content.find((c) => c.type === 'text') || {}).text || '';
    let data = null;
    try { data = JSON.parse(text); } catch { /* not JSON */ }
    report.calls[name] = { isError: !!r.isError, types: r.content.map((c) => c.type), data };
    return data;
  } catch (e) {
    report.calls[name] = { thrown: String(e.message || e) };
    return null;
  }
}

// every tool once, in an order where each has something to act on
await call('get_state', {});
await call('get_calibration', {});
await call('set_calibration', { um_per_px: 0.5 });
await call('get_params', {});
await call('set_params', { auto_prominence: 0.25 });
await call('run_extraction', {});
await call('get_metrics', {});
await call('get_history', {});
await call('accept_result', {});
const tl = await call('get_tubercles', {});
const ids = ((tl && tl.data && tl.data.tubercles) || []).map((t) => t.id);
await call('get_edges', {});
await call('get_statistics', {});
await call('add_debug_rectangle', { x: 20, y: 20, width: 120, height: 80, label: 'look here', color: 'orange' });
await call('get_screenshot', {});
await call('clear_debug_shapes', {});
await call('add_tubercle', { x: 50, y: 50 });
await call('move_tubercle', { id: ids[0], x: 60, y: 60 });
await call('delete_tubercle', { id: ids[1] });
await call('add_connection', { id1: ids[2], id2: ids[3] });
await call('delete_connection', { id1: ids[2], id2: ids[3] });
await call('auto_connect', { method: 'gabriel' });
await call('select_tubercles', { edge: { side: 'left', width_percent: 20 } });
await call('delete_tubercles', { ids: [ids[4]] });
await call('fill_gaps', { max_add: 2 });
await call('clear_connections', {});
await call('undo', {});
await call('redo', {});
await call('load_profile', { profile_name: 'default' });
await call('add_history_event', { event_type: 'agent_phase', phase: 'test', summary: 'from the SDK client' });
await call('get_user', {});
await call('export', { path: join(outdir, 'exported.json') });
await call('save_annotations', {});
await call('load_image', { path: image });

// invalid arguments
report.invalid = {};
for (const [name, args] of [['add_tubercle', { x: 'left' }], ['set_calibration', {}], ['no_such_tool', {}],
  ['delete_tubercles', { degree: 3 }]]) {
  try {
    const r = await client.callTool({ name, arguments: args });
    report.invalid[name] = { isError: !!r.isError, text: (r.content[0] || {}).text || '' };
  } catch (e) {
    report.invalid[name] = { thrown: String(e.message || e), code: e.code };
  }
}
await client.close();
process.stdout.write(JSON.stringify(report) + '\n');
