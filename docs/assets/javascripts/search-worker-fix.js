// Material's search worker starts as workers/lunr-token-set-fix.js, which
// loads it and fixes a bug of its lunr that made some queries find nothing
// (that file says which). Material's bundle creates the worker as soon as it
// runs, so this file is loaded in the head (docs/overrides/main.html). Every
// other worker is created as usual.
(function () {
  var Native = window.Worker
  if (!Native) return
  var SEARCH_WORKER = /\/workers\/(search\.[0-9a-f]+\.min\.js)$/
  function Worker(url, options) {
    var href = new URL(url, location.href), name = SEARCH_WORKER.exec(href.pathname)
    if (name) {
      var fixed = new URL("lunr-token-set-fix.js", href)
      fixed.searchParams.set("worker", name[1])
      url = fixed.href
    }
    return new Native(url, options)
  }
  Worker.prototype = Native.prototype  // search-segmentation.js and search-message-lookup.js wrap its methods
  window.Worker = Worker
})()
