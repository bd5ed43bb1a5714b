// A multipart body (RFC 2046, RFC 7578) as text, cut into its parts as written, for what reads one
// without parsing it for the service (the service accepts none): the redaction of a body kept as
// sent, and the HAR export's `params`. Lenient: LF line ends are read as CRLF ones, and a body cut
// short ends with the part it was cut in.

/** One part: its text after its delimiter, as written, and what its head says. */
interface MultipartPart {
  /** Everything between this part's delimiter and the next (its line ends included). */
  raw: string
  /** Where its content begins and ends in `raw`; null when its head is not complete (or it is the close delimiter's). */
  content: { start: number, end: number } | null
  /** Content-Disposition's name, filename; the part's Content-Type. */
  name?: string
  fileName?: string
  contentType?: string
}

/** A form-data field as HAR's postData.params gives it. */
export interface MultipartParam { name: string, value: string, fileName?: string, contentType?: string }

/** The boundary of a multipart Content-Type, or undefined. */
export function boundaryOf (contentType: string): string | undefined {
  if (!/^\s*multipart\//i.test(contentType)) return undefined
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType)
  return match?.[1] ?? match?.[2]
}

function parameter (head: string, name: string): string | undefined {
  return new RegExp(`;\\s*${name}="([^"]*)"`, 'i').exec(head)?.[1]
}

function readPart (raw: string): MultipartPart {
  // The close delimiter: "--" right after the boundary.
  const blank = raw.startsWith('--') ? null : /\r?\n\r?\n/.exec(raw)
  if (blank === null) return { raw, content: null }
  const head = raw.slice(0, blank.index)
  const start = blank.index + blank[0].length
  const lineEnd = /\r?\n$/.exec(raw.slice(start))?.[0] ?? ''
  const disposition = /^content-disposition:(.*)$/im.exec(head)?.[1] ?? ''
  const part: MultipartPart = { raw, content: { start, end: raw.length - lineEnd.length } }
  const name = parameter(disposition, 'name')
  const fileName = parameter(disposition, 'filename')
  const contentType = /^content-type:\s*(.*?)\s*$/im.exec(head)?.[1]
  if (name !== undefined) part.name = name
  if (fileName !== undefined) part.fileName = fileName
  if (contentType !== undefined) part.contentType = contentType
  return part
}

/** The text before the first delimiter, and each part after it. */
export function multipartParts (text: string, boundary: string): { preamble: string, delimiter: string, parts: MultipartPart[] } {
  const delimiter = `--${boundary}`
  const [preamble = '', ...rest] = text.split(delimiter)
  return { preamble, delimiter, parts: rest.map(readPart) }
}

/** A form-data body's fields, as HAR's params (null when the type has no boundary, or no part is complete). */
export function multipartParams (text: string, contentType: string): MultipartParam[] | null {
  const boundary = boundaryOf(contentType)
  if (boundary === undefined) return null
  const params: MultipartParam[] = []
  for (const { raw, content, name, fileName, contentType } of multipartParts(text, boundary).parts) {
    if (content === null) continue
    params.push({
      name: name ?? '',
      value: raw.slice(content.start, content.end),
      ...(fileName === undefined ? {} : { fileName }),
      ...(contentType === undefined ? {} : { contentType })
    })
  }
  return params.length === 0 ? null : params
}
