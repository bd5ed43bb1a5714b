// npm run advisors:import -- FILE
// Validates every row first; imports nothing if any row is bad, else upserts all rows in one transaction
// (scripts/advisor-import.ts; this runs it on the process's arguments, environment and streams).
import { importAdvisors } from './advisor-import.js'

process.exitCode = await importAdvisors(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr })
