// papersift topic map: a hover card with the paper's title, a point opens its paper, and chips that filter
// the listing below (its later parts loaded first: window.papersiftParts, static/app.js). A drawing's
// points are bare circles grouped by topic, in the order of their chip's data-papers (_topic_map.html).
// A map not drawn yet is a placeholder (.topic-map.pending): its map alone (data-map: the page's
// ?map=1&fragment=1, which waits for the map being drawn) is fetched and put in its place.
document.addEventListener("DOMContentLoaded", () => {
  const wire = (map) => {
    const box = map.querySelector(".map-box");
    const tip = map.querySelector(".map-tip");
    const chips = Array.from(map.querySelectorAll(".chip"));
    const papers = new Map(chips.map((c) => [c.dataset.cluster, c.dataset.papers.split(" ")]));
    const groups = Array.from(map.querySelectorAll("g.pt"));
    const points = [];
    for (const group of groups) {
      const ids = papers.get(group.dataset.cluster) || [];
      group.querySelectorAll("circle").forEach((circle, i) => {
        circle.dataset.id = ids[i] || "";
        points.push(circle);
      });
    }
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
      point.addEventListener("mouseleave", () => { tip.hidden = true; });
      point.addEventListener("click", () => {
        if (point.dataset.id) window.location.href = "/abs/" + point.dataset.id;
      });
    }
    // a page of one topic's papers (?topic=N, made by the server) leaves the chips to the form: another
    // chip opens its topic, the pressed one the whole list
    if (document.querySelector("section.listing[data-topic]")) return;
    const rows = () => Array.from(document.querySelectorAll("section.listing article.paper"));
    let keep = null;  // the ids of the topic shown, or null: every row
    const hide = () => {
      for (const row of rows()) row.hidden = keep !== null && !keep.has(row.id.slice(2));
    };
    document.addEventListener("papersift:rows", hide);  // a part appended later is filtered as it comes
    const filter = async (chip) => {
      const on = chip && chip.getAttribute("aria-pressed") !== "true";
      for (const c of chips) c.setAttribute("aria-pressed", String(on && c === chip));
      for (const group of groups) group.classList.toggle("dim", on && group.dataset.cluster !== chip.dataset.cluster);
      keep = on ? new Set(chip.dataset.papers.split(" ")) : null;
      hide();
      if (on && window.papersiftParts) await window.papersiftParts.rest();  // every paper of the topic
      const first = on && keep && rows().find((row) => !row.hidden);
      if (first && first.getBoundingClientRect().top > window.innerHeight) first.scrollIntoView({ block: "start" });
    };
    for (const chip of chips) {
      chip.addEventListener("click", (event) => {
        event.preventDefault();
        filter(chip);
      });
    }
    const asked = new URLSearchParams(location.search).get("topic");  // the map page's "show in the listing"
    const chip = chips.find((c) => c.dataset.cluster === asked);
    if (chip) filter(chip);
  };
  // the map drawn after the page: the server's escaped fragment (_topic_map.html), no script runs in it;
  // none (a day of one topic) removes the placeholder; a failure leaves it, with its link to the map
  const fill = async (slot) => {
    try {
      const response = await fetch(slot.dataset.map, { headers: { Accept: "text/html" }, credentials: "same-origin" });
      if (!response.ok) throw new Error("HTTP " + response.status);
      const fragment = document.createElement("template");
      fragment.innerHTML = await response.text();
      const map = fragment.content.querySelector(".topic-map");
      if (!map) {
        slot.remove();
        return;
      }
      slot.replaceWith(map);
      wire(map);
      document.dispatchEvent(new CustomEvent("papersift:map", { detail: map }));
    } catch {
      slot.removeAttribute("aria-busy");
    }
  };
  for (const map of document.querySelectorAll(".topic-map")) {
    if (map.classList.contains("pending")) fill(map);
    else wire(map);
  }
});
