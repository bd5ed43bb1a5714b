// run-suite: shares a process
import t from 'tap'
import { profilerPage } from '../helpers/profiler.js'
import { profiler, profilerBin, usageError } from '../helpers/profiler-cli.js'
import { recordedApp, SECRET_BEARER } from '../helpers/profile-store.js'

t.test('export: exactly what the /curl and /har pages answer; secrets stay redacted', async t => {
  const { app, env, tokens } = await recordedApp(t)
  for (const token of [tokens.found, tokens.notFound, tokens.robots]) {
    for (const format of ['curl', 'har'] as const) {
      const res = await profiler(['export', token, `--${format}`], env)
      t.equal(res.code, 0, res.stderr)
      const page = await profilerPage(app, `/${token}/${format}`)
      t.equal(page.statusCode, 200)
      t.equal(res.stdout, page.body, `export ${token} --${format} = GET /_profiler/${token}/${format}`)
    }
  }
  const curl = await profilerBin(['export', tokens.found, '--curl'], env)
  t.match(curl.stdout, /^curl 'http:\/\/localhost\/ccenter\/getConseillerByCode' \\\n/)
  t.match(curl.stdout, / {2}-H 'authorization: \[redacted\]' \\\n/)
  t.notOk(curl.stdout.includes(SECRET_BEARER.slice(7)), 'the bearer token is not in the command')

  const latest = await profiler(['export', 'latest', '--har'], env)
  const har = JSON.parse(latest.stdout)
  t.equal(har.log.entries.length, 1)
  t.equal(har.log.entries[0]._token, tokens.poll, 'latest: the newest profile')
  t.equal(latest.stdout, (await profilerPage(app, `/${tokens.poll}/har`)).body)
})

t.test('export: exactly one of --curl and --har, and a known token (usage errors, exit 2)', async t => {
  const { env, tokens } = await recordedApp(t)
  await usageError(t, ['export', tokens.found], env, 'export needs --curl or --har')
  await usageError(t, ['export', tokens.found, '--curl', '--har'], env, 'option \'--curl\' cannot be used with option \'--har\'')
  await usageError(t, ['export', tokens.found, '--har', '--curl'], env, 'option \'--curl\' cannot be used with option \'--har\'')
  await usageError(t, ['export', 'ffffff', '--curl'], env, 'Token "ffffff" not found.')
  await usageError(t, ['export', '--har'], env, 'missing required argument \'token\'')
})
