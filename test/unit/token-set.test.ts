// run-suite: shares a process
// The profile tokens drawn on the request thread (token.ts): a random one is taken on its number
// (TokenSet.takeRandom, no text parsed back). Every token it gives is 6 lowercase hex characters,
// was free, and is taken once given (has() says so); one already taken, by text, is never given;
// and a set with every token taken gives none, with the same error as a collision-stuck source.
import t from 'tap'
import { TOKEN_PATTERN, TokenSet, uniqueToken } from '../../plugins/profiler/token.js'

t.test('a random token is free when given and taken after', async t => {
  const tokens = new TokenSet()
  // A sixteenth of the space taken by text first: the draw must step over them.
  const before = new Set<string>()
  for (let n = 0; n < 0x1000000; n += 16) {
    const token = n.toString(16).padStart(6, '0')
    tokens.add(token)
    before.add(token)
  }
  const given = new Set<string>()
  for (let i = 0; i < 20_000; i++) {
    const token = tokens.takeRandom()
    if (!TOKEN_PATTERN.test(token)) t.fail(`not a token: ${token}`)
    if (before.has(token) || given.has(token)) t.fail(`given though taken: ${token}`)
    given.add(token)
  }
  t.equal(given.size, 20_000, 'every token given is new')
  t.ok([...given].every(token => tokens.has(token)), 'and taken once given')
})

t.test('a full set gives no token, as a source that only collides', async t => {
  const tokens = new TokenSet()
  for (let n = 0; n < 0x1000000; n++) tokens.add(n.toString(16).padStart(6, '0'))
  const stuck = (() => { try { uniqueToken(() => true, () => '000000') } catch (err) { return (err as Error).message } return null })()
  t.throws(() => tokens.takeRandom(), { message: stuck ?? 'unreachable' })
})
