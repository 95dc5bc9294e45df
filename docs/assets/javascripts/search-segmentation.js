// Split a search query the way the pages were split when the site was built,
// before Material's search worker sees it.
//
// At build time jieba cut the Chinese pages into words, keeping the site's
// terms whole (docs/search/jieba-user-dict.txt); Chinese readers type a query
// without spaces, often mixed with API names: "中间变量的梯度为None",
// "detach和data的区别". Here the query is split where Chinese meets Latin
// letters or digits, each run of Chinese characters is cut into the site's
// terms (longest first) and, between them, into words by the browser's own
// Chinese word segmenter (Intl.Segmenter), and particles that occur on every
// page (的, 为, 和, ...) and "vs" are dropped. The terms come from the page's
// configuration (docs/hooks/search_per_language.py puts them there).
(function () {
  var config = JSON.parse((document.getElementById("__config") || {}).textContent || "{}")
  var terms = (config.search_terms || []).slice().sort(function (a, b) { return b.length - a.length })
  var ignored = ["的", "了", "是", "和", "与", "及", "或", "为", "在", "吗", "呢", "吧", "啊", "呀",
                 "怎么", "怎样", "如何", "什么", "为什么", "哪个", "哪些", "区别", "vs", "versus"]
  var segmenter = typeof Intl !== "undefined" && "Segmenter" in Intl
    ? new Intl.Segmenter("zh", { granularity: "word" })
    : null

  function words(run) {
    var found = [], pending = ""
    function flush() {
      if (!pending) return
      if (segmenter)
        for (var piece of segmenter.segment(pending)) found.push(piece.segment)
      else
        found.push(pending)
      pending = ""
    }
    for (var i = 0; i < run.length;) {
      var term = terms.find(function (t) { return run.startsWith(t, i) })
      if (term) { flush(); found.push(term); i += term.length }
      else pending += run[i++]
    }
    flush()
    return found
  }

  function segment(query) {
    var split = query
      .replace(/(\p{sc=Han})(?=[A-Za-z0-9_.])/gu, "$1 ")
      .replace(/([A-Za-z0-9_.])(?=\p{sc=Han})/gu, "$1 ")
      .replace(/\p{sc=Han}+/gu, function (run) { return " " + words(run).join(" ") + " " })
    var kept = split.split(/\s+/).filter(function (word) {
      return word && ignored.indexOf(word.toLowerCase()) < 0
    })
    return kept.length ? kept.join(" ") : query
  }

  // Material's search runs in a web worker; a query reaches it as a message
  // {type: 2, data: "the query"} (SearchMessageType.QUERY).
  var QUERY = 2
  var post = Worker.prototype.postMessage
  Worker.prototype.postMessage = function (message) {
    if (message && message.type === QUERY && typeof message.data === "string")
      arguments[0] = Object.assign({}, message, { data: segment(message.data) })
    return post.apply(this, arguments)
  }
  window.__segmentSearchQuery = segment  // for the browser tests
})()
