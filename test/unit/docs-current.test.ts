// run-suite: shares a process
// The docs stay current and short: README.md at most 200 lines, docs/performance.md at most 250 and
// exactly what the bench's generator makes of the committed bench/results*.json (the README's
// figures too), and every link between the docs reaches a file and a heading that exist.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import t from 'tap'
import { benchDocs } from '../../bench/performance-doc-files.js'
import { packageRoot } from '../../paths.js'

const read = (path: string): string => readFileSync(join(packageRoot, path), 'utf8')
const lineCount = (text: string): number => text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
const DOCS = ['README.md', ...readdirSync(join(packageRoot, 'docs')).filter(name => name.endsWith('.md')).map(name => join('docs', name))]

t.test('README.md is at most 200 lines, docs/performance.md at most 250', async t => {
  t.ok(lineCount(read('README.md')) <= 200, `README.md has ${lineCount(read('README.md'))} lines`)
  t.ok(lineCount(read('docs/performance.md')) <= 250, `docs/performance.md has ${lineCount(read('docs/performance.md'))} lines`)
})

t.test('docs/performance.md and the README\'s figures are what the generator makes of the committed results', async t => {
  for (const { path, text } of benchDocs(packageRoot)) {
    t.equal(read(path), text, `${path} is bench/performance-doc.ts's output (if not: npm run bench:doc)`)
  }
})

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2... */
function anchors (markdown: string): Set<string> {
  const found = new Set<string>()
  const seen = new Map<string, number>()
  let fenced = false
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced
    if (fenced) continue
    for (const [, id] of line.matchAll(/<a id="([^"]+)"><\/a>/g)) if (id !== undefined) found.add(id)
    const heading = /^#{1,6} (.*)$/.exec(line)?.[1]
    if (heading === undefined) continue
    const slug = heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-')
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    found.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return found
}

t.test('every relative link in README.md and docs/*.md reaches a file, and a heading where it names one', async t => {
  const broken: string[] = []
  for (const doc of DOCS) {
    const text = read(doc).replace(/```[\s\S]*?```/g, '')
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (target === undefined || /^[a-z]+:/.test(target)) continue
      const [file = '', anchor] = target.split('#')
      const path = file === '' ? doc : normalize(join(dirname(doc), file))
      if (!existsSync(join(packageRoot, path))) broken.push(`${doc}: ${target} (no ${path})`)
      else if (anchor !== undefined && path.endsWith('.md') && !anchors(read(path)).has(anchor)) broken.push(`${doc}: ${target} (no heading #${anchor} in ${path})`)
    }
  }
  t.same(broken, [], 'no broken link')
})
