// papersift topic map: a hover card with the paper's title, and chips that filter the listing below.
document.addEventListener("DOMContentLoaded", () => {
  for (const map of document.querySelectorAll(".topic-map")) {
    const box = map.querySelector(".map-box");
    const tip = map.querySelector(".map-tip");
    const points = Array.from(map.querySelectorAll("a.pt"));
    const show = (point) => {
      const row = document.getElementById("p-" + point.dataset.id);
      const title = row && row.querySelector(".title");
      tip.textContent = title ? title.textContent.trim() : point.dataset.id;
      tip.hidden = false;
      const at = point.getBoundingClientRect();
      const frame = box.getBoundingClientRect();
      tip.style.left = Math.min(at.left - frame.left + 10, frame.width - tip.offsetWidth) + "px";
      tip.style.top = at.top - frame.top + 12 + "px";
    };
    for (const point of points) {
      point.addEventListener("mouseenter", () => show(point));
      point.addEventListener("focus", () => show(point));
      point.addEventListener("mouseleave", () => { tip.hidden = true; });
      point.addEventListener("blur", () => { tip.hidden = true; });
    }
    const chips = Array.from(map.querySelectorAll(".chip"));
    const rows = () => Array.from(document.querySelectorAll("section.listing article.paper"));
    const filter = (chip) => {
      const on = chip && chip.getAttribute("aria-pressed") !== "true";
      for (const c of chips) c.setAttribute("aria-pressed", String(on && c === chip));
      const keep = on ? new Set(chip.dataset.papers.split(" ")) : null;
      for (const row of rows()) row.hidden = keep !== null && !keep.has(row.id.slice(2));
      for (const point of points) point.classList.toggle("dim", keep !== null && !keep.has(point.dataset.id));
    };
    for (const chip of chips) chip.addEventListener("click", () => filter(chip));
    const asked = new URLSearchParams(location.search).get("topic");  // the map page's "show in the listing"
    const chip = chips.find((c) => c.dataset.cluster === asked);
    if (chip) filter(chip);
  }
});
