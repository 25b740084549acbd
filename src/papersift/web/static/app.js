// papersift: math by KaTeX; expand abstracts; a thumbnail that fails removed; the reader's saved / rated
// state on every row (all of these on a part's rows appended later too); copy BibTeX; the date picker (the
// page's filters kept); long lists in parts (web/parts.py: "more" appends the next part's rows); the keys:
// j / k next / previous paper (j past the last loads more), o or Enter open it, p its PDF, s save,
// + / − more / less like it, e its abstract, r mark it read.
document.addEventListener("DOMContentLoaded", () => {
  // math wherever text from papers or models is shown: titles, abstracts, TL;DRs, 中文 titles, FAQ,
  // answers, reasons, comments. The paper's own macros (its TeX preamble's, when its full text is stored)
  // come as JSON data in #tex-macros; a formula KaTeX cannot read (an unknown macro, a recursive one past
  // KaTeX's expansion limit) stays as its source text in the text's own colour, never a red error.
  const texMacros = () => {
    const data = document.getElementById("tex-macros");
    const macros = {};
    try {
      const given = data ? JSON.parse(data.textContent) : {};
      for (const [name, body] of Object.entries(given)) {
        if (/^\\[A-Za-z]+$/.test(name) && typeof body === "string") macros[name] = body;
      }
    } catch (e) {
      return {};
    }
    return macros;
  };
  const macros = texMacros();
  const typeset = (root) => {
    if (!window.renderMathInElement) return;
    const selector = ".title, .abstract, .tldr-text, .zh-title, .faq, .answer, .why, .comments, .marks";
    const found = root.matches && root.matches(selector) ? [root] : root.querySelectorAll(selector);
    for (const element of found) {
      try {
        window.renderMathInElement(element, {
          delimiters: [
            { left: "$$", right: "$$", display: true },
            { left: "$", right: "$", display: false },
            { left: "\\(", right: "\\)", display: false },
          ],
          macros,
          maxExpand: 1000,
          throwOnError: true, // auto-render then leaves the formula's source as text
          errorCallback: () => {},
          strict: "ignore",
        });
      } catch (e) {
        // an error that is not a parse error: the element keeps its text
      }
    }
  };
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
  const within = (root, selector) => Array.from(root.querySelectorAll(selector));
  const rated = within(document, "form.lib").length && !document.querySelector("form.rerate");
  const mine = rated
    ? fetch("/api/mine", { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then((r) => (r.ok ? r.json() : null))
        .catch(() => null)
    : Promise.resolve(null);
  const posted = async (form, body) => {
    const response = await fetch(form.action, { method: "POST", body, headers: { Accept: "application/json" } });
    if (response.status === 401) {
      window.location.href = "/login?next=" + encodeURIComponent(window.location.pathname);
      return null;
    }
    return response.ok ? response.json() : null;
  };
  // a first-page thumbnail that could not be had (fetched on demand, and failed) is removed, not shown broken
  const thumbnails = (root) => {
    for (const img of within(root, "img.thumb")) {
      const drop = () => img.closest(".first-page")?.remove();
      if (img.complete && img.naturalWidth === 0) drop();
      else img.addEventListener("error", drop);
    }
  };
  // what every row (of the page, or of a part appended later) does: math, its thumbnail, its abstract, its
  // forms
  const enhance = (root) => {
    typeset(root);
    thumbnails(root);
    for (const button of within(root, ".paper .toggle")) {
      button.addEventListener("click", () => {
        const abstract = button.closest(".paper").querySelector(".abstract");
        const open = abstract.classList.toggle("collapsed") === false;
        button.setAttribute("aria-expanded", String(open));
      });
    }
    const forms = within(root, "form.lib");
    if (forms.length && rated) {
      mine.then((m) => {
        if (!m || !m.reader) return;
        for (const form of forms) show(form, m.ratings[form.dataset.id]);
      });
    }
    // save / +1 / -1 without leaving the page (the forms work without JavaScript too)
    for (const form of forms) {
      form.addEventListener("submit", async (event) => {
        event.preventDefault();
        const result = await posted(form, new FormData(form, event.submitter));
        if (result) show(form, result.rating);
      });
    }
    // read: the paper leaves the reader's Daily Papers (POST /seen; the form works without JavaScript too)
    for (const form of within(root, "form.seen")) {
      form.addEventListener("submit", async (event) => {
        event.preventDefault();
        if (!(await posted(form, new FormData(form)))) return;
        const row = form.closest(".paper");
        if (row) row.classList.add("seen", "read");
        const button = form.querySelector("button.read");
        if (button) {
          button.classList.add("on");
          button.setAttribute("aria-pressed", "true");
        }
      });
    }
  };
  enhance(document);
  // long lists in parts (web/parts.py): the "more" link's part is fetched (its rows alone, data-rows) and
  // put in its place with the link to the part after it; without script the link opens that part's page
  const loadNext = async () => {
    const link = document.querySelector("nav.more a.more-link");
    if (!link || link.dataset.loading) return [];
    link.dataset.loading = "1";
    try {
      const response = await fetch(link.dataset.rows, { headers: { Accept: "text/html" }, credentials: "same-origin" });
      if (!response.ok) throw new Error("HTTP " + response.status);
      const part = document.createElement("template");
      part.innerHTML = await response.text(); // the server's escaped rows (_part.html): no script runs in them
      const rows = within(part.content, "article.paper");
      // a part of search's results brings the count line for the ranks now shown ("results 1–50")
      const count = part.content.querySelector("p.result-count");
      const shownCount = count && document.querySelector("p.result-count");
      if (shownCount) shownCount.replaceWith(count);
      else if (count) count.remove();
      link.closest("nav.more").replaceWith(part.content);
      for (const row of rows) enhance(row);
      document.dispatchEvent(new CustomEvent("papersift:rows", { detail: rows }));
      return rows;
    } catch {
      delete link.dataset.loading;
      return [];
    }
  };
  const loadRest = async () => {
    while ((await loadNext()).length) {}
  };
  window.papersiftParts = { next: loadNext, rest: loadRest };
  document.addEventListener("click", async (event) => {
    const link = event.target.closest && event.target.closest("nav.more a");
    if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    const rows = link.classList.contains("rest-link") ? (await loadRest(), []) : await loadNext();
    const title = rows.length && rows[0].querySelector("a.title");
    if (title) title.focus(); // where the reader was: the first paper of the part
  });
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
      if (day) window.location.href = form.dataset.base + "/" + day + (form.dataset.query || "");
    });
  }
  // the keys, over the papers shown (a topic chip hides the others)
  const papers = () => within(document, "article.paper").filter((row) => !row.hidden);
  let current = null;
  const select = async (step) => {
    let rows = papers();
    let at = rows.indexOf(current) + step;
    if (at >= rows.length && (await loadNext()).length) rows = papers();
    if (!rows.length) return;
    at = Math.max(0, Math.min(rows.length - 1, at));
    if (current) current.classList.remove("current");
    current = rows[at];
    current.classList.add("current");
    current.scrollIntoView({ block: "nearest" });
  };
  const press = (selector) => {
    const button = current && current.querySelector(selector);
    if (button) button.click();
  };
  const keys = {
    j: () => select(current ? 1 : 0),
    k: () => select(current ? -1 : 0),
    o: () => current && (window.location.href = current.dataset.href),
    Enter: () => current && (window.location.href = current.dataset.href),
    p: () => press("a.pdf"),
    s: () => press("form.lib button.save"),
    "+": () => press("form.lib button.up"),
    "=": () => press("form.lib button.up"),
    "-": () => press("form.lib button.down"),
    e: () => press("button.toggle"),
    r: () => press("form.seen button.read"),
  };
  document.addEventListener("keydown", (event) => {
    const tag = (event.target.tagName || "").toLowerCase();
    const typing = tag === "input" || tag === "textarea" || tag === "select" || event.target.isContentEditable;
    if (typing || event.metaKey || event.ctrlKey || event.altKey) return;
    // Enter on a link or a button is theirs; on the page it opens the current paper
    if (event.key === "Enter" && (tag === "a" || tag === "button")) return;
    const action = keys[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  });
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
