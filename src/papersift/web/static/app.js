// papersift: math by KaTeX; expand abstracts; the reader's saved / rated state on every row; copy BibTeX;
// the date picker; j/k to move between papers, o to open the current one, r to mark it read.
document.addEventListener("DOMContentLoaded", () => {
  // math wherever text from papers or models is shown: titles, abstracts, TL;DRs, 中文 titles, FAQ,
  // answers, reasons, comments
  const typeset = (root) => {
    if (!window.renderMathInElement) return;
    const selector = ".title, .abstract, .tldr-text, .zh-title, .faq, .answer, .why, .comments, .marks";
    const found = root.matches && root.matches(selector) ? [root] : root.querySelectorAll(selector);
    for (const element of found) {
      window.renderMathInElement(element, {
        delimiters: [
          { left: "$$", right: "$$", display: true },
          { left: "$", right: "$", display: false },
          { left: "\\(", right: "\\)", display: false },
        ],
        throwOnError: false,
      });
    }
  };
  typeset(document);
  for (const button of document.querySelectorAll(".paper .toggle")) {
    button.addEventListener("click", () => {
      const abstract = button.closest(".paper").querySelector(".abstract");
      const open = abstract.classList.toggle("collapsed") === false;
      button.setAttribute("aria-expanded", String(open));
    });
  }
  // a row's state: saved (any rating), +1 or -1; pages are cached without it, so it comes from /api/mine
  const show = (form, rating) => {
    const saved = rating !== null && rating !== undefined;
    const mark = (selector, on) => {
      const b = form.querySelector(selector);
      if (!b) return;
      b.classList.toggle("on", on);
      b.setAttribute("aria-pressed", String(on));
    };
    mark("button.save", saved);
    mark("button.up", rating === 1);
    mark("button.down", rating === -1);
    const row = form.closest(".paper, .paper-page");
    if (row) {
      row.classList.toggle("saved", saved);
      row.classList.toggle("liked", rating === 1);
      row.classList.toggle("disliked", rating === -1);
      row.dataset.rating = saved ? String(rating) : "";
    }
  };
  const forms = Array.from(document.querySelectorAll("form.lib"));
  if (forms.length && !document.querySelector("form.rerate")) {
    fetch("/api/mine", { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then((r) => (r.ok ? r.json() : null))
      .then((mine) => {
        if (!mine || !mine.reader) return;
        for (const form of forms) show(form, mine.ratings[form.dataset.id]);
      })
      .catch(() => {});
  }
  // save / +1 / -1 without leaving the page (the forms work without JavaScript too)
  for (const form of forms) {
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
      show(form, result.rating);
    });
  }
  for (const button of document.querySelectorAll("button.copy")) {
    button.addEventListener("click", async () => {
      const source = document.querySelector(button.dataset.copy);
      if (!source) return;
      const label = button.textContent;
      try {
        await navigator.clipboard.writeText(source.textContent);
        button.textContent = button.dataset.done;
      } catch {
        const range = document.createRange();
        range.selectNodeContents(source);
        window.getSelection().removeAllRanges();
        window.getSelection().addRange(range);
      }
      setTimeout(() => (button.textContent = label), 2000);
    });
  }
  for (const form of document.querySelectorAll("form.day-picker")) {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const day = form.querySelector("input[name=day]").value;
      if (day) window.location.href = form.dataset.base + "/" + day;
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
    else if (event.key === "r" && current >= 0) {
      const form = papers[current].querySelector("form.seen");
      if (form) form.requestSubmit();
    }
  });
  // read: the paper leaves the reader's Daily Papers (POST /seen; the form works without JavaScript too)
  for (const form of document.querySelectorAll("form.seen")) {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const response = await fetch(form.action, {
        method: "POST",
        body: new FormData(form),
        headers: { Accept: "application/json" },
      });
      if (response.status === 401) {
        window.location.href = "/login?next=" + encodeURIComponent(window.location.pathname);
        return;
      }
      if (!response.ok) return;
      const row = form.closest(".paper");
      if (row) row.classList.add("seen", "read");
      const button = form.querySelector("button.read");
      if (button) {
        button.classList.add("on");
        button.setAttribute("aria-pressed", "true");
      }
    });
  }
  // the paper's FAQ, streamed as the model writes it (server-sent events from /api/faq/{id}): the
  // deltas as plain text, then the server's safe HTML of the whole; without script the link writes it
  for (const box of document.querySelectorAll("[data-faq-src]")) {
    const link = box.parentElement.querySelector("a.faq-link");
    const failed = (why) => {
      box.textContent = box.dataset.failed + ": " + why;
      box.classList.add("failed");
    };
    const read = async () => {
      if (link) link.hidden = true;
      const text = document.createElement("p");
      text.className = "streaming";
      text.textContent = box.dataset.writing + " ";
      box.replaceChildren(text);
      let response;
      try {
        response = await fetch(box.dataset.faqSrc, { headers: { accept: "text/event-stream" } });
      } catch (error) {
        failed(String(error));
        return;
      }
      if (!response.ok || !response.body) {
        failed("HTTP " + response.status);
        return;
      }
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      let written = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = (block.match(/^event: (.*)$/m) || [])[1];
          const data = JSON.parse((block.match(/^data: (.*)$/m) || [])[1] || "{}");
          if (event === "delta") {
            written += data.text;
            text.textContent = written;
          } else if (event === "done") {
            box.innerHTML = data.html; // built by the server's escaping Markdown subset (reading/markdown.py)
            typeset(box);
          } else if (event === "error") {
            failed(data.error);
          }
        }
      }
    };
    read();
  }
});
