// Regions that scroll sideways (wide tables, notebook code cells) can be
// reached and scrolled with the keyboard, as Material's own code blocks can
// (axe-core: scrollable-region-focusable).
document$.subscribe(function () {
  var regions = document.querySelectorAll(
    ".md-typeset__scrollwrap, .jupyter-wrapper .highlight-ipynb, .jupyter-wrapper pre"
  )
  regions.forEach(function (region) {
    if (region.scrollWidth > region.clientWidth && !region.hasAttribute("tabindex"))
      region.setAttribute("tabindex", "0")
  })
})
