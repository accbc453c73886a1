// Optional: each <time datetime> also in the reader's own zone. The page reads the same without it.
document.addEventListener("DOMContentLoaded", function () {
  var times = document.querySelectorAll("time[datetime]");
  if (!times.length || !window.Intl) { return; }
  var note = document.querySelector(".local-note");
  var yours = (note && note.getAttribute("data-yours")) || "yours";
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone || yours;
  var shown = new Intl.DateTimeFormat(document.documentElement.lang || undefined, {
    weekday: "short", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit"
  });
  times.forEach(function (element) {
    var moment = new Date(element.getAttribute("datetime"));
    if (isNaN(moment.getTime())) { return; }
    var local = document.createElement("span");
    local.className = "local-time";
    local.textContent = " (" + yours + ": " + shown.format(moment) + ", " + zone + ")";
    element.after(local);
  });
  if (note) { note.hidden = false; }
});
