// papersift: math by KaTeX; expand abstracts; j/k to move between papers, o to open the current one.
document.addEventListener("DOMContentLoaded", () => {
  if (window.renderMathInElement) {
    for (const element of document.querySelectorAll(".title, .abstract")) {
      window.renderMathInElement(element, {
        delimiters: [
          { left: "$$", right: "$$", display: true },
          { left: "$", right: "$", display: false },
          { left: "\\(", right: "\\)", display: false },
        ],
        throwOnError: false,
      });
    }
  }
  for (const button of document.querySelectorAll(".paper .toggle")) {
    button.addEventListener("click", () => {
      const abstract = button.closest(".paper").querySelector(".abstract");
      abstract.classList.toggle("collapsed");
    });
  }
  // save / +1 / -1 without leaving the page (the forms work without JavaScript too)
  for (const form of document.querySelectorAll("form.lib")) {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const button = event.submitter;
      const response = await fetch(form.action, {
        method: "POST",
        body: new FormData(form, button),
        headers: { Accept: "application/json" },
      });
      if (response.status === 401) {
        window.location.href = "/login?next=" + encodeURIComponent(window.location.pathname);
        return;
      }
      if (!response.ok) return;
      const result = await response.json();
      for (const b of form.querySelectorAll("button")) b.classList.remove("on");
      form.querySelector("button.save").classList.add("on");
      if (result.rating === 1) form.querySelector("button.up").classList.add("on");
      if (result.rating === -1) form.querySelector("button.down").classList.add("on");
      form.closest(".paper").dataset.rating = String(result.rating);
    });
  }
  const papers = Array.from(document.querySelectorAll(".paper"));
  let current = -1;
  const select = (i) => {
    if (!papers.length) return;
    if (current >= 0) papers[current].classList.remove("current");
    current = Math.max(0, Math.min(papers.length - 1, i));
    papers[current].classList.add("current");
    papers[current].scrollIntoView({ block: "nearest" });
  };
  document.addEventListener("keydown", (event) => {
    const tag = (event.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || tag === "select" || event.metaKey || event.ctrlKey) return;
    if (event.key === "j") select(current + 1);
    else if (event.key === "k") select(current - 1);
    else if (event.key === "o" && current >= 0) window.location.href = papers[current].dataset.href;
  });
});
