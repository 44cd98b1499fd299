// axe.mjs - runs axe-core (tests/browser/node_modules/axe-core) in a page and
// returns its violations of impact "serious" or "critical". The page's CSP
// allows no inline script, so the library goes in through the DevTools
// protocol's evaluation (page.evaluate of its source), which the CSP does
// not govern, rather than through a <script> tag.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './server.mjs';

let source = null;

export async function axeViolations(page, { include = null, exclude = [] } = {}) {
  if (!source) source = readFileSync(path.join(ROOT, 'tests', 'browser', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(source);
  const result = await page.evaluate(async ([inc, exc]) => {
    const context = inc ? { include: [inc], exclude: exc.map(s => [s]) } : { exclude: exc.map(s => [s]) };
    const r = await window.axe.run(context.exclude.length || inc ? context : document, { resultTypes: ['violations'] });
    return r.violations.map(v => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target.join(' ') + ': ' + n.failureSummary.replace(/\s+/g, ' ').slice(0, 200)) }));
  }, [include, exclude]);
  return result.filter(v => v.impact === 'serious' || v.impact === 'critical');
}

// One readable line per violation and node, for an assertion's message.
export function describe(violations) {
  return violations.map(v => `${v.id} (${v.impact}): ${v.help}\n    ` + v.nodes.slice(0, 6).join('\n    ')).join('\n  ');
}
