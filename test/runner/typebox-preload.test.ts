// run-suite: shares a process
// The runner gives TypeBox's preload (.taprc's node-arg) only to a process whose files reach TypeBox
// (typebox-preload.ts), and groups the files that share a process apart by it: read from real
// compiled files (the project's config imports TypeBox; the runner's fixtures, tap only).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { packageRoot } from '../../paths.js'
import { apartByTypebox, preloadsFor } from './typebox-preload.js'

/** .taprc's node-args, as written there. */
const taprcArgs = [...readFileSync(join(packageRoot, '.taprc'), 'utf8').matchAll(/^\s+- (--\S+)$/gm)].map(([, arg]) => arg ?? '')
const withoutTypebox = taprcArgs.filter(arg => !arg.includes('preload-typebox'))
const fixture = (name: string): string => `dist/test/runner/fixtures/group-${name}.js`
const config = 'dist/config.js'
// TypeBox reached through the project's modules: helpers/app.js -> app.js -> config.js -> typebox.
const appHelper = 'dist/test/helpers/app.js'

t.test('a process whose files reach TypeBox preloads it; one whose files do not goes without', async t => {
  t.equal(taprcArgs.length - withoutTypebox.length, 1, '.taprc preloads TypeBox')
  t.same(preloadsFor([config], packageRoot, taprcArgs), taprcArgs, 'a module that imports it')
  t.same(preloadsFor([appHelper], packageRoot, taprcArgs), taprcArgs, 'a module that reaches it through others')
  t.same(preloadsFor([fixture('pass-a')], packageRoot, taprcArgs), withoutTypebox, 'a file that imports tap only: the other preloads stay, in order')
  t.same(preloadsFor([fixture('pass-a'), fixture('pass-b')], packageRoot, taprcArgs), withoutTypebox, 'a group none of whose files reach it')
  t.same(preloadsFor([fixture('pass-a'), appHelper], packageRoot, taprcArgs), taprcArgs, 'a group one of whose files reaches it')
})

t.test('the files that share a process are grouped apart by whether they reach TypeBox', async t => {
  t.same(apartByTypebox([fixture('pass-a'), config, fixture('pass-b'), appHelper], packageRoot), [[config, appHelper], [fixture('pass-a'), fixture('pass-b')]], 'those that reach it first, each lot in the order given')
  t.same(apartByTypebox([fixture('pass-a'), fixture('pass-b')], packageRoot), [[fixture('pass-a'), fixture('pass-b')]], 'no empty lot')
  t.same(apartByTypebox([], packageRoot), [])
})
