import neostandard from 'neostandard'

export default neostandard({
  ts: true,
  ignores: ['dist/**', 'dist-bench/**', 'var/**', '.tap/**', 'coverage/**']
})
