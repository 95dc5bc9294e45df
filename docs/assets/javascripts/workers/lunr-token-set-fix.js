// Material's search worker, with one bug of its bundled lunr (2.3.9) fixed.
//
// lunr builds the set of the index's words (TokenSet.fromArray) as an
// automaton and merges its equal nodes, which it tells apart by a string:
// final flag, then each edge's character and the id of the node it leads to,
// run together. Where an edge's character is a digit, two different nodes can
// give the same string ("1" to node 234, or "1" to node 2 and "3" to node 4),
// so they are merged and the set accepts words that are in no page. A query
// that reaches such a word ("b*" reached "bert#23": the question bank's
// "bert#1" and "bert#15" were in the index) makes lunr read the postings of a
// word that has none, the worker throws, and Material shows "No matching
// documents" for the whole query. Related upstream: olivernn/lunr.js#503, a
// word with digits not found after Index.load (lunr is no longer maintained).
// Here each edge's string ends with a comma, so the string names one node.
//
// search-worker-fix.js (loaded in the head) starts this file in place of
// Material's worker, with the worker's file name in ?worker=, from the same
// folder: the worker's own imports (../lunr/...) resolve as they would.
var worker = new URLSearchParams(location.search).get("worker") || ""
if (!/^search\.[0-9a-f]+\.min\.js$/.test(worker))
  throw new Error("lunr-token-set-fix.js: ?worker= must name Material's search worker (search.<hash>.min.js), got " +
                  JSON.stringify(worker))
importScripts(worker)
if (typeof lunr === "undefined" || !lunr.TokenSet)
  throw new Error("lunr-token-set-fix.js: " + worker + " no longer defines lunr.TokenSet; check whether the fix is still needed")
lunr.TokenSet.prototype.toString = function () {
  if (this._str) return this._str  // as lunr's own: it never sets _str, so nodes are compared as they are now
  var str = this.final ? "1" : "0", labels = Object.keys(this.edges).sort()
  for (var i = 0; i < labels.length; i++) str += labels[i] + this.edges[labels[i]].id + ","
  return str
}
