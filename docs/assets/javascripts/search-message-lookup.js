// A pasted error message leads to its entry in the error index.
//
// Search ranks pages by the words they share with the query, and the error
// index holds messages that share most of their words ("a leaf Variable that
// requires grad is being used in an in-place operation" and "a view of a leaf
// Variable that ..." have entries of their own). The build writes the list of
// messages and their entries to search/error-messages.json in every language
// folder (docs/hooks/error_message_lookup.py). Here, when a query holds one of
// those messages whole (what varies, written <...> in the list, may be
// anything; a number may be any number), or when it is the start of exactly one
// entry's messages, that entry's result is put first. Where several messages
// match, the one that starts first in the query wins, then the longest (the
// more specific). Everything else keeps
// Material's ranking. The query is read from the search box, as the reader
// wrote it (search-segmentation.js reweighs what the worker gets). This file
// wraps how the worker's results arrive, which Material's bundle subscribes to
// as soon as it runs: it is loaded in the head (docs/overrides/main.html).
(function () {
  var RESULT = 3  // Material's SearchMessageType
  var MIN_PREFIX = 20  // a shorter query is a few words, not a pasted message
  var messages = null

  function pattern(text) {
    return text.split(/(<[^<>]*>|\d+|\s+)/).filter(Boolean).map(function (part) {
      if (/^<[^<>]+>$/.test(part)) return "[\\s\\S]*?"
      if (/^\d+$/.test(part)) return "\\d+"
      if (/^\s+$/.test(part)) return "\\s+"
      return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    }).join("")
  }

  function load() {
    var config = JSON.parse((document.getElementById("__config") || {}).textContent || "{}")
    var base = new URL((config.base || ".").replace(/\/?$/, "/"), location.href)
    fetch(new URL("search/error-messages.json", base))
      .then(function (response) { return response.ok ? response.json() : [] })
      .then(function (list) {
        messages = list.map(function (item) {
          var text = item[1], head = text.split("<")[0]
          return { typed: new RegExp(pattern(item[0] + ": " + text), "i"), whole: new RegExp(pattern(text), "i"),
                   head: head.replace(/\s+/g, " ").toLowerCase(), length: text.length, entry: item[2] }
        })
      })
      .catch(function () { messages = [] })
  }

  // The entry a query asks for, or null.
  function entryOf(text) {
    if (!messages) return null
    text = text.replace(/\s+/g, " ").trim()
    // The message that starts first in the query wins (a gradcheck error quoting a vmap error is gradcheck's),
    // then the longest (the more specific), then one matched with its type.
    var best = null, start = Infinity, score = -1
    messages.forEach(function (message) {
      var typed = message.typed.exec(text), whole = typed || message.whole.exec(text)
      if (!whole) return
      var found = message.length * 2 + (typed ? 1 : 0)
      if (whole.index < start || (whole.index === start && found > score)) {
        best = message.entry; start = whole.index; score = found
      }
    })
    if (best) return best
    var bare = text.replace(/^[\w.]*(Error|Warning|Exception|Unsupported):\s*/, "").toLowerCase()
    if (bare.length < MIN_PREFIX) return null
    var entries = messages.filter(function (message) { return message.head.startsWith(bare) })
      .map(function (message) { return message.entry })
    return entries.length && entries.every(function (entry) { return entry === entries[0] }) ? entries[0] : null
  }

  // Material's results: a list of pages, each a list of documents (the page and its sections).
  function reorder(data) {
    var box = document.querySelector("[data-md-component=search-query]")
    var entry = box && entryOf(box.value)
    if (!entry || !data || !Array.isArray(data.items)) return data
    var at = data.items.findIndex(function (page) {
      return page.some(function (doc) { return doc.location === entry })
    })
    if (at <= 0) return data
    var items = data.items.slice()
    items.unshift(items.splice(at, 1)[0])
    return Object.assign({}, data, { items: items })
  }

  var listen = Worker.prototype.addEventListener
  Worker.prototype.addEventListener = function (type, listener, options) {
    if (type !== "message" || typeof listener !== "function") return listen.apply(this, arguments)
    return listen.call(this, type, function (event) {
      if (!event.data || event.data.type !== RESULT) return listener.call(this, event)
      var data = Object.assign({}, event.data, { data: reorder(event.data.data) })
      return listener.call(this, new MessageEvent("message", { data: data }))
    }, options)
  }
  // With the page, as Material loads its search index: ready before the reader types.
  document.addEventListener("DOMContentLoaded", load)
  window.__searchEntryOf = entryOf  // for the browser tests
})()
