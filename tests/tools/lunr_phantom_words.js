// Seeded search for a list of words that Material's search worker, set up as
// tests/browser/test_search.py sets it up (one page holding the words), turns
// into a lunr token set that accepts words that are in no page: lunr 2.3.9's
// TokenSet.toString bug (docs/assets/javascripts/workers/lunr-token-set-fix.js).
// Run by tests/tools/lunr_phantom_words.py: node lunr_phantom_words.js WORKER.js
// prints {"setup": the SETUP message's data, "query": a word of the page and a
// phantom, "phantoms": [...]} (the test posts that setup and that query), or
// exits 1 if no list shows the bug.
"use strict"
const fs = require("fs"), vm = require("vm")

const source = fs.readFileSync(process.argv[2], "utf8")
// The data of the SETUP message (SearchMessageType 0; QUERY is 2): an index of one page holding the words.
const setup = words => ({
  config: { lang: ["en"], separator: "[\\s]+", pipeline: [], fields: { title: { boost: 1 }, text: { boost: 1 } } },
  docs: [{ location: "page/", title: "page", text: words.join(" ") }], options: { suggest: false } })

// The words the index's token set accepts and its inverted index lacks, in a fresh worker (lunr's node ids
// start again at 1, as in the browser's new worker).
async function phantoms(words) {
  let handler = null
  const context = { console: { warn() {}, log() {}, error() {} }, Intl, setTimeout, Promise,
                    addEventListener: (type, listener) => { handler = listener }, postMessage() {} }
  context.self = context
  vm.createContext(context)
  vm.runInContext(source, context)
  handler({ data: { type: 0, data: setup(words) } })
  await new Promise(resolve => setTimeout(resolve, 0))
  let index = null
  const query = context.lunr.Index.prototype.query
  context.lunr.Index.prototype.query = function (build) { index = this; return query.call(this, build) }
  handler({ data: { type: 2, data: "page" } })
  await new Promise(resolve => setTimeout(resolve, 0))
  if (!index) throw new Error(`${process.argv[2]}: the worker answered no query; has its message protocol changed?`)
  const keys = new Set(Object.keys(index.invertedIndex))
  return index.tokenSet.toArray().filter(word => !keys.has(word))
}

async function main() {
  let seed = 1
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647  // Park-Miller: the same lists everywhere
  for (let size = 20; size <= 400; size += 20)
    for (let attempt = 0; attempt < 50; attempt++) {
      const words = [...new Set(Array.from({ length: size }, () => "x" + Math.floor(random() * 10000)))].sort()
      const found = await phantoms(words)
      if (found.length) {
        console.log(JSON.stringify({ setup: setup(words), query: `${words[0]} ${found[0]}`, phantoms: found }))
        return 0
      }
    }
  console.error("no list of up to 400 words shows the bug: has Material's lunr been fixed?")
  return 1
}
main().then(code => process.exit(code))
