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
//
// Then, in every language, the query is weighed before the worker sees it.
// Material appends a wildcard to every word, so "grad" also matches grad_input,
// grad_fn and gradient, and a section whose title holds a rarer word that
// starts with "grad" outranked the page titled "why .grad is None". Each Latin
// word is therefore also sent as itself, weighted EXACT times the words it is
// a prefix of (lunr counts a word once, in its first clause: the wildcard
// clause then only adds the longer words). And English stop words are dropped:
// the index has none of them (lunr's stopWordFilter), so "is" in "grad is None"
// only matched the words it begins (is_leaf, isfinite). Chinese words are left
// to Material, which cuts them again by its own index (a weight would land on
// the last piece only).
(function () {
  var config = JSON.parse((document.getElementById("__config") || {}).textContent || "{}")
  var terms = (config.search_terms || []).slice().sort(function (a, b) { return b.length - a.length })
  var ignored = ["的", "了", "是", "和", "与", "及", "或", "为", "在", "吗", "呢", "吧", "啊", "呀",
                 "怎么", "怎样", "如何", "什么", "为什么", "哪个", "哪些", "区别", "vs", "versus"]
  // lunr's English stop words (lunr.stopWordFilter): never in the index.
  var stopWords = ("a able about across after all almost also am among an and any are as at be because been but by " +
    "can cannot could dear did do does either else ever every for from get got had has have he her hers him his how " +
    "however i if in into is it its just least let like likely may me might most must my neither no nor not of off " +
    "often on only or other our own rather said say says she should since so some than that the their them then " +
    "there these they this tis to too twas us wants was we were what when where which while who whom why will with " +
    "would yet you your").split(" ")
  var EXACT = 5  // the weight of a word itself against the longer words it begins
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
      // A "*" on its own (a pasted "TreeSpec(tuple, None, [*, *])") would reach Lunr as a wildcard that
      // matches every word of the index: the worker spends minutes on it, and the searches after it wait.
      // "grad*", a star a reader types after a word, stays.
      .replace(/(^|[^\w])\*+/g, "$1 ")
      .replace(/(\p{sc=Han})(?=[A-Za-z0-9_.])/gu, "$1 ")
      .replace(/([A-Za-z0-9_.])(?=\p{sc=Han})/gu, "$1 ")
      .replace(/\p{sc=Han}+/gu, function (run) { return " " + words(run).join(" ") + " " })
    var kept = split.split(/\s+/).filter(function (word) {
      // A stop word is one with its punctuation too ("must be." in a pasted message), as lunr's trimmer
      // left the pages' words when it built the index.
      var bare = word.replace(/^\W+/, "").replace(/\W+$/, "").toLowerCase()
      return word && ignored.indexOf(word.toLowerCase()) < 0 && stopWords.indexOf(bare) < 0
    })
    return kept.length ? kept.join(" ") : query
  }

  // "grad None" -> "grad^5 grad None^5 None": the word itself first, weighted, then as Material sends it.
  function weigh(query) {
    return query.split(/\s+/).filter(Boolean).map(function (word) {
      return /^[A-Za-z0-9_.]+$/.test(word) ? word + "^" + EXACT + " " + word : word
    }).join(" ")
  }

  // Material's search runs in a web worker; a query reaches it as a message
  // {type: 2, data: "the query"} (SearchMessageType.QUERY).
  var QUERY = 2
  var post = Worker.prototype.postMessage
  Worker.prototype.postMessage = function (message) {
    if (message && message.type === QUERY && typeof message.data === "string")
      arguments[0] = Object.assign({}, message, { data: weigh(segment(message.data)) })
    return post.apply(this, arguments)
  }
  window.__segmentSearchQuery = segment  // for the browser tests
  window.__searchQuery = function (query) { return weigh(segment(query)) }
})()
