// A section that moved to another page leaves its old id on a link to where it
// went: `[Title](other/page.md#id){ #old-id .moved }` (CONTRIBUTING, "Moving or
// splitting a page"). A reader who opens an old link to that #old-id is taken
// straight on to the section's new place; the link stays for readers without
// JavaScript.
document$.subscribe(function () {
  var id = decodeURIComponent(location.hash.slice(1))
  if (!id) return
  var target = document.getElementById(id)
  if (target && target.tagName === "A" && target.classList.contains("moved") && target.href)
    location.replace(target.href)
})
