// run-suite: shares a process
import t from 'tap'
import { buildTestApp, postJson } from '../helpers/app.js'

const URL = '/ccenter/getConseillerByCode'

t.test('a known code answers the advisor record from the sample data', async t => {
  const app = await buildTestApp(t)
  const res = await postJson(app, URL, { code: 'ADV1001' })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.match(body, {
    code: 'ADV1001',
    firstName: 'Amélie',
    lastName: 'Martin',
    email: 'amelie.martin@contact-centre.example',
    team: 'Billing',
    phoneExtension: '4100',
    status: 'available',
    lastSeenAt: null
  })
  t.ok(Date.parse(body.updatedAt) > 0, 'updatedAt is a date-time')
  t.same(Object.keys(body).sort(), ['code', 'email', 'firstName', 'lastName', 'lastSeenAt', 'phoneExtension', 'status', 'team', 'updatedAt'])
})

t.test('the code is trimmed before the lookup', async t => {
  const app = await buildTestApp(t)
  const res = await postJson(app, URL, { code: '  ADV1002\t' })
  t.equal(res.statusCode, 200)
  t.equal(res.json().code, 'ADV1002')
})

t.test('an unknown code is a 404 naming the code', async t => {
  const app = await buildTestApp(t)
  const res = await postJson(app, URL, { code: 'ZZZ9' })
  t.equal(res.statusCode, 404)
  t.same(res.json(), { statusCode: 404, error: 'Not Found', message: 'No advisor found for code "ZZZ9"' })
})

t.test('a missing or invalid code is a 400 that names the field', async t => {
  const app = await buildTestApp(t)
  const cases: Array<[unknown, RegExp]> = [
    [{}, /required property 'code'/],
    [{ code: '' }, /code/],
    [{ code: '   ' }, /code/],
    [{ code: 'x'.repeat(65) }, /code/],
    [{ code: { nested: true } }, /code/]
  ]
  for (const [body, message] of cases) {
    const res = await postJson(app, URL, body)
    t.equal(res.statusCode, 400, JSON.stringify(body))
    t.match(res.json().message, message)
    t.match(res.json().message, /body/)
  }
})

t.test('outside development no sample data is loaded', async t => {
  const app = await buildTestApp(t, { NODE_ENV: 'production' })
  const res = await postJson(app, URL, { code: 'ADV1001' })
  t.equal(res.statusCode, 404)
})
