import t from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { listProfiles } from '../helpers/profiler.js'

t.test('URL substrings: literal *, ? and [, short terms, and many matching URLs', async t => {
  const app = await buildTestApp(t)
  await app.inject({ url: '/files/a[1]/b*c?q=x?y' })
  await app.inject({ url: '/files/a1/bXc' })
  for (let i = 0; i < 150; i++) await app.inject({ url: `/probe/${i}` })
  await app.inject({ url: '/files/last' })
  const urls = async (query: string) => (await listProfiles(app, query)).map(p => p.url)
  t.same(await urls(`url=${encodeURIComponent('a[1]')}`), ['http://localhost/files/a[1]/b*c?q=x?y'], '[ is literal')
  t.same(await urls(`url=${encodeURIComponent('b*c')}`), ['http://localhost/files/a[1]/b*c?q=x?y'], '* is literal')
  t.same(await urls(`url=${encodeURIComponent('x?y')}`), ['http://localhost/files/a[1]/b*c?q=x?y'], '? is literal')
  t.same(await urls('url=bXc'), ['http://localhost/files/a1/bXc'])
  await app.inject({ url: '/quoted/%22ab%22?q=%22x' })
  t.same(await urls(`url=${encodeURIComponent('%22ab%22')}`), ['http://localhost/quoted/%22ab%22?q=%22x'], 'quotes in the term')
  t.same(await urls('url=zzzz'), [], 'a trigram that no URL has')
  t.same(await urls('url=bxc'), [], 'case-sensitive, like the other filters')
  t.same(await urls('url=a1'), ['http://localhost/files/a1/bXc'], 'a term shorter than a trigram')
  t.same(await urls('url=/probe/&limit=3'), ['http://localhost/probe/149', 'http://localhost/probe/148', 'http://localhost/probe/147'], 'over 100 matching URLs: newest first all the same')
  t.same(await urls('url=/probe/14&limit=4'), ['http://localhost/probe/149', 'http://localhost/probe/148', 'http://localhost/probe/147', 'http://localhost/probe/146'])
  t.same(await urls('url=/probe/7&status_code=404&method=GET&limit=2'), ['http://localhost/probe/79', 'http://localhost/probe/78'], 'combined with other filters')
  t.same(await urls('url=!/probe/&limit=2'), ['http://localhost/quoted/%22ab%22?q=%22x', 'http://localhost/files/last'])
})

t.test('IP substrings that match several addresses are merged newest first', async t => {
  const app = await buildTestApp(t)
  const ips = ['10.0.0.1', '10.0.0.2', '192.168.1.1', '10.0.0.1', '10.0.0.3', '172.16.0.1']
  for (const [i, ip] of ips.entries()) await app.inject({ url: `/r${i}`, remoteAddress: ip })
  const listed = await listProfiles(app, 'ip=10.0.0.')
  t.same(listed.map(p => `${p.ip} ${p.url}`), ['10.0.0.3 http://localhost/r4', '10.0.0.1 http://localhost/r3', '10.0.0.2 http://localhost/r1', '10.0.0.1 http://localhost/r0'])
  t.same((await listProfiles(app, 'ip=10.0.0.&limit=2&url=r')).map(p => p.url), ['http://localhost/r4', 'http://localhost/r3'])
  t.same(await listProfiles(app, 'ip=8.8.8.8'), [])
})
