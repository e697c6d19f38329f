#!/usr/bin/python3
"""The tsmech manual (docs/manual/) generated from the manual blocks in the code.

  /usr/bin/python3 tools/manual.py            write docs/manual/ from src/ and include/
  /usr/bin/python3 tools/manual.py --check    regenerate (in memory) and compare with docs/manual/
                                              (exit 1, naming the stale, missing and extra pages)
  /usr/bin/python3 tools/manual.py --list     one line per block: kind, name, page, file

Python 3 standard library only; reads the sources, never the build.

The blocks are PETSc's doctext (petsc/petsc src/ts/impls/implicit/theta/theta.c is the model):

  /*@ (or /*@C)  a function              /*MC ... M*/   a type, option group or file format
  /*E, /*S, /*J  an enum, struct, typedef (listed with the functions of the header that declares it)

  NAME - one-line summary (continued up to the first blank line)

  Collective | Not Collective | Logically Collective   (functions)
  Input Parameters: / Output Parameters: / Options Database Keys: / Calling sequence of fn:
+ first - description                 a list: "+" first item, "." middle items, "-" last item
. mid   - description                 ("." alone for a one-item list); a line indented under an
- last  - description                 item continues it
  Level: beginner | intermediate | advanced | developer
  Notes: (or Note:) paragraphs, .vb ... .ve verbatim, "$ code" lines
.seealso: `Name()`, `TYPENAME`, ...    resolved to links (names not in tsmech are PETSc's: plain)

Which block becomes which page (the conventions a new block follows; docs/manual/README.md
repeats them for readers):

  TS type      /*MC TSFOO - "foo": summary          ts/foo.md: every /*MC whose name is TS + capitals
                                                     and whose summary starts with the quoted type
                                                     name (the value of -ts_type)
  model        the /*@ block of the function registered for the model's name
                (PetscFunctionListAdd(&MechModelList, "foo", MechCreateFoo) or
                MechModelRegister("foo", MechCreateFoo) in src/)
                                                     models/foo.md
  option group /*MC NameOptions - summary           options/NameOptions.md: an /*MC whose name ends
                                                     in "Options" (the driver's, the mechanical
                                                     system's, output and checkpoint options, ...)
  file format  /*MC NameFormat - summary            formats/NameFormat.md: an /*MC whose name ends in
                                                     "Format" (the HDF5 output, checkpoint layouts)
  function     every other /*@ block                api/<section>.md#name: one page per section of
                                                     include/tsmech.h (its boxed banner comments),
                                                     in declaration order; functions declared in a
                                                     private header get one page per header
  other /*MC, /*E, /*S, /*J   listed like functions, by the header that declares the name

Options: the items of "Options Database Keys:" (or "Key:") are the single source of an option's
documentation; an item names one or more options before its " - " ("-a <1>, -b <2> - both ..."),
a default or a choice after an option in angle brackets with a space ("-chain_n <20>"). A family
of options with a name inside is written with the placeholder glued in angle brackets:
"-solid_bc_<name>_where <x=0> - ..." stands for -solid_bc_top_where, -solid_bc_a_where, ...;
a trailing * stands for the options of a PETSc solver under a prefix of tsmech's ("-mass_ksp_*").
tools/manual_options.py checks them against tsmech -help.

Function pages are grouped by header section, not one per function: the header is already
arranged by job, a reader sees the related calls together (as in the header), the folder stays
at a dozen files instead of ~180, and links into a section are anchors GitHub resolves. Source
links name the file, never a line, so a page changes only when its blocks or declarations do.
"""
import argparse
import difflib
import glob
import os
import re
import shutil
import sys
from dataclasses import dataclass, field

OPEN = re.compile(r"/\*(@[CEX]*|MC|E|S|J)[ \t]*\n")
CLOSE = {"MC": "M*/", "E": "E*/", "S": "S*/", "J": "J*/"}
HEADINGS = [  # (regex on the stripped line, canonical section name)
    (r"Input Parameters?\b.*:$", "Input Parameters"),
    (r"Output Parameters?\b.*:$", "Output Parameters"),
    (r"Input/Output Parameters?\b.*:$", "Input/Output Parameters"),
    (r"Options Database Keys?\s*:$", "Options Database Keys"),
    (r"Calling sequence( of \w+)?\s*:$", None),
    (r"Notes?\s*:$", "Notes"),
    (r"Developer Notes?\s*:$", "Developer Notes"),
    (r"Fortran Notes?\s*:$", "Fortran Notes"),
    (r"References?\s*:$", "References"),
    (r"Example( Usage)?s?\s*:$", "Example"),
]
COLLECTIVE = re.compile(r"^((Not|Logically|Neighbor-wise) )?Collective\b")
OPTION = re.compile(r"-[A-Za-z][A-Za-z0-9_]*(?:<[A-Za-z0-9_]+>[A-Za-z0-9_]*)*\*?")
KIND_DIR = {"ts": "ts", "model": "models", "options": "options", "format": "formats"}
KIND_TITLE = {"ts": "TS types", "model": "Models", "options": "Option groups", "format": "File formats"}


@dataclass
class Item:  # one bullet of a list: its key (names before " - ") and description
    key: str
    text: str
    options: list = field(default_factory=list)  # the options an "Options Database Keys" item lists
    values: list = field(default_factory=list)  # their defaults or choices (<...>), in order


@dataclass
class Block:
    kind: str  # "function", "MC", "E", "S", "J"
    name: str
    summary: str
    path: str
    line: int
    collective: str = ""
    level: str = ""
    parts: list = field(default_factory=list)  # [(section or None, [("p", text) | ("list", [Item]) | ("code", text)])]
    seealso: list = field(default_factory=list)
    signature: str = ""
    page: str = ""  # docs/manual/ relative path of its page
    anchor: str = ""  # "" when the block is the whole page
    pagekind: str = ""  # ts, model, options, format, api
    typename: str = ""  # the -ts_type or -model value of a TS type or model page

    def options(self):
        """The options of its Options Database Keys items, in order."""
        return [(o, it) for sec, content in self.parts if sec == "Options Database Keys" for tag, x in content if tag == "list" for it in x for o in it.options]


# ------------------------------------------------------------------------------------------------
# Reading the blocks
# ------------------------------------------------------------------------------------------------


def source_files(root):
    files = glob.glob(os.path.join(root, "include", "**", "*.h"), recursive=True)
    files += glob.glob(os.path.join(root, "src", "**", "*.[ch]"), recursive=True)
    return sorted(os.path.relpath(f, root) for f in files)


def split_item(text, is_option):
    """'key - description' of a list item; an option key starts with '-', so the separator is searched after it."""
    m = re.search(r"\s-(\s+|$)", text[1:] if is_option else text)
    if not m:
        return text.strip(), ""
    cut = m.start() + (1 if is_option else 0)
    return text[:cut].strip(), text[cut + len(m.group(0)):].strip()


def option_item(key, text):
    """The options an item names and their <defaults>: '-a <1>, -b <x,y> - ...', '-ts_type foo - ...'."""
    values = re.findall(r"(?<=\s)<([^<>]*)>", " " + key)
    bare = re.sub(r"(^|\s)<[^<>]*>", " ", key)
    # the tokens that start a word: "-ts_type symeuler2" names -ts_type with the value symeuler2
    opts = [o for o in OPTION.findall(bare) if re.search(r"(^|[\s,(])" + re.escape(o) + r"(?![\w<*])", bare)]
    if not values:
        rest = bare
        for o in opts:
            rest = rest.replace(o, " ")
        values = [w for w in re.split(r"[\s,]+", rest) if w.strip(".")]
    return Item(key, text, opts, values)


def parse_body(lines, blk):
    """Sections of a block's lines after the summary (PETSc's doctext, above)."""
    section, content = None, []
    parts = [(None, content)]
    verbatim, last_item, seealso = None, None, None
    for raw in lines:
        s = raw.strip()
        if verbatim is not None:
            if s == ".ve":
                content.append(("code", "\n".join(verbatim)))
                verbatim = None
            else:
                verbatim.append(raw[2:] if raw.startswith("  ") else raw.lstrip())
            continue
        if seealso is not None:
            seealso.append(s)
            continue
        if s.startswith(".seealso"):
            seealso = [s.split(":", 1)[1] if ":" in s else ""]
            continue
        if s == ".vb":
            verbatim, last_item = [], None
            continue
        if not s:
            last_item = None
            content.append(("blank", ""))
            continue
        if s.startswith("Level:"):
            blk.level = s.split(":", 1)[1].strip()
            last_item = None
            continue
        if COLLECTIVE.match(s) and section is None and not blk.collective:
            blk.collective = s.rstrip(":.")
            last_item = None
            continue
        heading = None
        for rx, name in HEADINGS:
            if re.match(rx, s):
                heading = name or s.rstrip(":").strip()
                break
        if heading:
            section, content, last_item = heading, [], None
            parts.append((section, content))
            continue
        if s.startswith("$"):
            content.append(("code", s[1:].strip()))
            last_item = None
            continue
        m = re.match(r"^([+.\-]) (.*)$", raw) or (re.match(r"^ ?([+.\-]) (.*)$", raw) if section else None)
        if m and (m.group(1) != "-" or section):
            is_opt = section == "Options Database Keys"
            key, text = split_item(m.group(2), is_opt)
            item = option_item(key, text) if is_opt else Item(key, text)
            if content and content[-1][0] == "list" and m.group(1) != "+":
                content[-1][1].append(item)
            else:
                content.append(("list", [item]))
            last_item = item
            continue
        if last_item is not None and raw[:1] == " ":
            last_item.text = (last_item.text + " " + s).strip()
            continue
        last_item = None
        if content and content[-1][0] == "p":
            content[-1] = ("p", content[-1][1] + "\n" + s)
        else:
            content.append(("p", s))
    if seealso is not None:
        names = re.findall(r"`([^`]+)`|([A-Za-z_]\w*(?:\(\))?)", " ".join(seealso))
        blk.seealso = [a or b for a, b in names if (a or b) and not (a or b).startswith("[")]
    blk.parts = parts


def signature_after(text, pos):
    """The C declaration that follows a function block (up to its brace or semicolon), on one line."""
    rest = text[pos:pos + 2000]
    m = re.match(r"\s*((?:[^{;]|\n)*?\))\s*[{;]", rest)
    if not m:
        return ""
    sig = " ".join(m.group(1).split())
    return sig if "(" in sig and not sig.startswith(("/*", "#")) else ""


def read_blocks(root):
    blocks = []
    for rel in source_files(root):
        with open(os.path.join(root, rel), encoding="utf-8") as fh:
            text = fh.read()
        for m in OPEN.finditer(text):
            tag = m.group(1)
            kind = "function" if tag.startswith("@") else tag
            end = text.find(CLOSE.get(tag, "@*/"), m.end())
            if end < 0:
                raise SystemExit(f"{rel}:{text.count(chr(10), 0, m.start()) + 1}: manual block without its end {CLOSE.get(tag, '@*/')}")
            lines = text[m.end():end].split("\n")
            while lines and not lines[0].strip():
                lines.pop(0)
            first = []
            while lines and lines[0].strip():
                first.append(lines.pop(0).strip())
            head = " ".join(first)
            hm = re.match(r"^([A-Za-z_]\w*)\s+-\s+(.*)$", head)
            if not hm:
                raise SystemExit(f"{rel}:{text.count(chr(10), 0, m.start()) + 1}: a manual block must start with 'Name - summary', not {head[:60]!r}")
            blk = Block(kind, hm.group(1), hm.group(2).strip(), rel, text.count("\n", 0, m.start()) + 1)
            parse_body(lines, blk)
            if kind == "function":
                blk.signature = signature_after(text, end + 3)
            blocks.append(blk)
    return blocks


# ------------------------------------------------------------------------------------------------
# Which block is which page
# ------------------------------------------------------------------------------------------------


def registered_models(root):
    """{create function: model name} from the registrations in src/."""
    reg = {}
    for rel in source_files(root):
        with open(os.path.join(root, rel), encoding="utf-8") as fh:
            text = fh.read()
        for m in re.finditer(r'(?:PetscFunctionListAdd\(\s*&MechModelList\s*,|MechModelRegister\()\s*"(\w+)"\s*,\s*(\w+)\s*\)', text):
            reg[m.group(2)] = m.group(1)
    return reg


def header_sections(root):
    """{declared name: (header, section title, subsection)} and the sections in order."""
    decl, order = {}, []
    headers = [f for f in source_files(root) if f.endswith(".h")]
    headers.sort(key=lambda f: (f != "include/tsmech.h", f))
    for rel in headers:
        with open(os.path.join(root, rel), encoding="utf-8") as fh:
            lines = fh.read().split("\n")
        public = rel.startswith("include/")
        section = "General" if public else rel
        sub = ""
        if not public:
            order.append((rel, section))
        for i, line in enumerate(lines):
            if public and re.match(r"^/\* -{20,} \*/$", line) and i + 2 < len(lines):
                title = re.match(r"^/\*\s*(.*?)\s*\*/$", lines[i + 1])
                if title and not title.group(1).startswith("-") and re.match(r"^/\* -{20,} \*/$", lines[i + 2]):
                    section = title.group(1)
                    section = re.sub(r"\s*\(.*\)$", "", section)
                    sub = ""
                    order.append((rel, section))
                continue
            sm = re.match(r"^/\* ---- (.*?) ---- \*/$", line)
            if sm:
                sub = "" if sm.group(1).startswith("end of") else re.sub(r"\s*\(.*\)$", "", sm.group(1))
                continue
            for name in re.findall(r"\b(\w+)\s*\(", line) if "PETSC_EXTERN" in line or "PETSC_INTERN" in line or re.match(r"^\w[\w\s\*]*\b\w+\s*\(", line) else []:
                decl.setdefault(name, (rel, section, sub))
            for name in re.findall(r"^#define\s+(\w+)", line) + re.findall(r"^\}\s*(\w+)\s*;", line) + re.findall(r"^typedef\s+[^;(]*?\b(\w+)\s*;", line):
                decl.setdefault(name, (rel, section, sub))
    return decl, order


def slug(title):
    s = re.sub(r"^(the|a|an)\s+", "", title.strip().lower())
    s = re.sub(r"[^a-z0-9]+", "-", s).strip("-")
    return s or "general"


def assign_pages(blocks, root):
    models = registered_models(root)
    decl, order = header_sections(root)
    seen, names = {}, {}
    for b in blocks:
        if b.name in names:
            raise SystemExit(f"{b.path}:{b.line}: a second manual block for {b.name} (the first: {names[b.name].path}:{names[b.name].line})")
        names[b.name] = b
        tm = re.match(r'^"([\w.\-]+)"\s*:', b.summary)
        if b.kind == "MC" and re.fullmatch(r"TS[A-Z0-9_]+", b.name) and tm:
            b.pagekind, b.typename, b.page = "ts", tm.group(1), f"ts/{tm.group(1)}.md"
        elif b.kind == "function" and b.name in models:
            b.pagekind, b.typename, b.page = "model", models[b.name], f"models/{models[b.name]}.md"
        elif b.kind == "MC" and b.name.endswith("Options"):
            b.pagekind, b.page = "options", f"options/{b.name}.md"
        elif b.kind == "MC" and b.name.endswith("Format"):
            b.pagekind, b.page = "format", f"formats/{b.name}.md"
        else:
            hdr, section, _ = decl.get(b.name, (None, None, None))
            if hdr is None:
                hdr, section = "undeclared", "Not declared in a header"
            b.pagekind = "api"
            if hdr == "undeclared":
                b.page = "api/not-declared-in-a-header.md"
            else:
                b.page = f"api/{slug(section)}.md" if hdr.startswith("include/") else f"api/{slug(os.path.splitext(hdr)[0].replace('src/', ''))}.md"
            b.anchor = b.name.lower()
        if b.page in seen and not b.anchor:
            raise SystemExit(f"{b.path}:{b.line}: {b.name} would write {b.page}, which {seen[b.page].name} ({seen[b.page].path}) writes")
        seen[b.page] = b
    return decl, order


# ------------------------------------------------------------------------------------------------
# Markdown
# ------------------------------------------------------------------------------------------------


class Links:
    def __init__(self, blocks):
        self.target = {}
        for b in blocks:
            self.target[b.name] = (b.page, b.anchor)
            if b.pagekind in ("ts", "model") and b.typename:
                self.target.setdefault(b.typename, (b.page, ""))
        self.option_home = {}
        for b in blocks:
            for o, _ in b.options():
                self.option_home.setdefault(o, []).append(b)

    def href(self, name, frompage):
        base = name[:-2] if name.endswith("()") else name
        if base not in self.target:
            return None
        page, anchor = self.target[base]
        rel = os.path.relpath(page, os.path.dirname(frompage) or ".")
        if page == frompage:
            rel = ""
        return rel + (f"#{anchor}" if anchor else "")

    def name(self, name, frompage):
        h = self.href(name, frompage)
        return f"[`{name}`]({h})" if h else f"`{name}`"


def escape(text):
    text = text.replace("\\", "\\\\").replace("<", "&lt;").replace(">", "&gt;").replace("*", "\\*").replace("|", "\\|")
    return re.sub(r"(^|\s)([#+])", r"\1\\\2", text) if text[:1] in "#+" else text


def option_code(word, links):
    """An option named in prose as code: names with an underscore, or options some block lists (-model)."""
    name = word.replace("&lt;", "<").replace("&gt;", ">")
    return f"`{name}`" if "_" in name or name in links.option_home else word


def prose(text, links, page):
    """Markdown of doctext prose: `code` kept (and linked when it names a block), options as code."""
    out = []
    for i, piece in enumerate(re.split(r"(`[^`]*`)", text)):
        if i % 2:
            out.append(links.name(piece[1:-1], page))
            continue
        esc = escape(piece)
        esc = re.sub(r"(?<![\w`\-/.])(-[a-z][A-Za-z0-9_]*(?:&lt;[A-Za-z0-9_]+&gt;[A-Za-z0-9_]*)*)", lambda m: option_code(m.group(1), links), esc)
        esc = re.sub(r"(?<![\w`\[])([A-Za-z_]\w*\(\))", lambda m: links.name(m.group(1), page) if links.href(m.group(1), page) is not None else m.group(1), esc)
        esc = re.sub(r"(?<![\w/.])(docs/[\w\-]+\.md)", lambda m: f"[{m.group(1)}]({os.path.relpath(m.group(1), os.path.join('docs/manual', os.path.dirname(page)))})", esc)
        out.append(esc)
    return "".join(out)


def render_items(items, section, links, page):
    out = []
    if section == "Options Database Keys":
        out += ["| Option | Value | Description |", "|---|---|---|"]
        for it in items:
            opts = ", ".join(f"`{o}`" for o in it.options) or escape(it.key)
            vals = ", ".join(f"`{v}`" for v in it.values)
            out.append(f"| {opts} | {vals.replace('|', chr(92) + '|')} | {prose(it.text, links, page)} |")
        return out
    for it in items:
        key = ", ".join(f"`{k.strip()}`" for k in it.key.split(",")) if re.fullmatch(r"[\w\s,\[\]*]+", it.key) else prose(it.key, links, page)
        out.append(f"- {key} — {prose(it.text, links, page)}" if it.text else f"- {prose(it.key, links, page)}")
    return out


def render_block(b, links, level):
    h = "#" * level
    summary = re.sub(r'^"[\w.\-]+"\s*:\s*', "", b.summary) if b.pagekind == "ts" else b.summary
    out = [f"{h} {b.name}", "", prose(summary, links, b.page), ""]
    facts = [x for x in (b.collective, f"Level: {b.level}" if b.level else "") if x]
    src = os.path.relpath(b.path, os.path.dirname(os.path.join("docs/manual", b.page)))
    facts.append(f"[{b.path}]({src})")
    out += [" · ".join(facts), ""]
    if b.pagekind == "ts":
        out += ["```", f"-ts_type {b.typename}", "```", ""]
    if b.signature:
        out += ["```c", b.signature, "```", ""]
    for section, content in b.parts:
        body = []
        for tag, x in content:
            if tag == "p":
                body += [prose(x, links, b.page), ""]
            elif tag == "list":
                body += render_items(x, section, links, b.page) + [""]
            elif tag == "code":
                if body[-2:-1] == ["```"] and body[-1] == "":
                    body[-2:] = [x, "```", ""]
                else:
                    body += ["```", x, "```", ""]
        if not body:
            continue
        if section:
            out += [f"**{section}**", ""]
        out += body
    if b.seealso:
        out += ["**See also:** " + ", ".join(links.name(s, b.page) for s in b.seealso), ""]
    return out


GENERATED = "<!-- generated by tools/manual.py from the manual blocks in the code: edit the blocks, not this file -->"


def render(blocks, decl, order, root):
    links = Links(blocks)
    pages = {}
    for b in blocks:
        if b.pagekind != "api":
            title = {"ts": f"TS type {b.typename}", "model": f"Model {b.typename}"}.get(b.pagekind, b.name)
            lines = render_block(b, links, 1)
            lines[0] = f"# {title}"
            if b.pagekind in ("ts", "model"):
                lines[1:1] = ["", f"`{b.name}`" + (" · the model's create function" if b.pagekind == "model" else "")]
            pages[b.page] = [GENERATED, ""] + lines + ["[Manual index](../README.md)", ""]
    # the API pages: by header section, in declaration order
    by_page = {}
    for b in blocks:
        if b.pagekind == "api":
            by_page.setdefault(b.page, []).append(b)
    titles = {}
    for hdr, section in order:
        p = f"api/{slug(section)}.md" if hdr.startswith("include/") else f"api/{slug(os.path.splitext(hdr)[0].replace('src/', ''))}.md"
        titles.setdefault(p, (hdr, section))
    titles.setdefault("api/not-declared-in-a-header.md", ("undeclared", "Not declared in a header"))
    pos = {name: i for i, name in enumerate(decl)}
    for page, bl in sorted(by_page.items()):
        hdr, section = titles[page]
        bl.sort(key=lambda b: (pos.get(b.name, 1 << 30), b.name))
        title = section if hdr.startswith("include/") else f"Developer: {hdr}"
        where = f"Declared in [{hdr}]({os.path.relpath(hdr, 'docs/manual/api')})" if hdr != "undeclared" else "Functions whose manual block has no declaration in a header"
        out = [GENERATED, "", f"# {title}", "", where + ".", ""]
        sub = None
        for b in bl:
            s = decl.get(b.name, ("", "", ""))[2]
            if s and s != sub:
                out += [f"- **{s}**"]
            sub = s
            out.append(f"  - [`{b.name}`](#{b.anchor}) — {prose(b.summary, links, page)}" if s else f"- [`{b.name}`](#{b.anchor}) — {prose(b.summary, links, page)}")
        others = [b for b in blocks if b.pagekind != "api" and b.name in decl and f"api/{slug(decl[b.name][1])}.md" == page]
        for b in others:
            out.append(f"- [`{b.name}`]({os.path.relpath(b.page, 'api')}) — the page of the {b.pagekind.replace('ts', 'TS type')} {b.typename or b.name}")
        out.append("")
        for b in bl:
            out += render_block(b, links, 2)
        out += ["[Manual index](../README.md)", ""]
        pages[page] = out
    # cross-links from the API pages to the model pages
    pages["README.md"] = render_index(blocks, by_page, titles, links)
    pages["option-index.md"] = render_option_index(blocks, links)
    return {p: "\n".join(lines).rstrip("\n") + "\n" for p, lines in pages.items()}


CONVENTIONS = """\
## Conventions of the manual blocks

Every page here is generated by `tools/manual.py` from the PETSc-style manual blocks in `src/` and
`include/` (`/*@ ... @*/` for functions, `/*MC ... M*/` for types, option groups and formats); edit
the blocks and run `/usr/bin/python3 tools/manual.py`. The test `manual_up_to_date` (suite `docs`)
fails while a page differs from what the blocks give.

| Page | Comes from | Example |
|---|---|---|
| TS type `ts/NAME.md` | `/*MC TSNAME - "name": summary` (a TS type macro, the summary starting with the quoted `-ts_type` value) | `TSSYMEULER2 - "symeuler2": symplectic Euler ...` |
| model `models/NAME.md` | the `/*@` block of the function registered for the model (`PetscFunctionListAdd(&MechModelList, "name", MechCreateName)` or `MechModelRegister()`) | `MechCreateChain` |
| option group `options/XOptions.md` | `/*MC XOptions - summary`: an `/*MC` whose name ends in `Options` | `TSMechDriverOptions` (the program's options) |
| file format `formats/XFormat.md` | `/*MC XFormat - summary`: an `/*MC` whose name ends in `Format` | `MechOutputFormat` (the HDF5 output) |
| function `api/SECTION.md#name` | any other `/*@` block, on the page of the `include/tsmech.h` section (banner comment) that declares it; private headers get a page each | `MechSystemSetMass` |

In a block: `Name - summary` first; `Collective` / `Not Collective` / `Logically Collective`;
`Input Parameters:`, `Output Parameters:`, `Options Database Keys:` as `+ . -` lists (`+` first item,
`.` next items, `-` last); `Level:`; `Notes:` with `.vb`/`.ve` for verbatim lines; `.seealso:` with
names in backticks (resolved to links; names outside tsmech are PETSc's).

**Options.** The `Options Database Keys:` of exactly one block documents an option (checked
against `tsmech -help` by `tools/manual_options.py`, test `manual_options`): an item names its
options before ` - `, each with its default or choices after a space in angle brackets
(`-chain_n <20> - number of particles`). Options made per name are written with the placeholder
glued in angle brackets: `-solid_bc_<name>_where` stands for `-solid_bc_top_where`; a trailing `*`
for the options of a PETSc solver under a prefix of tsmech's (`-mass_ksp_*`). Other blocks may
mention an option in their text but do not list it. PETSc's own options (`-ts_type`, `-ksp_type`)
may be listed on any page. `/usr/bin/python3 tools/manual_options.py` lists the options `-help`
prints that no block documents, by `-help` block (`--skeleton`: as items to paste into a block),
and the listed options `-help` does not know.
"""


def render_index(blocks, by_page, titles, links):
    out = [GENERATED, "", "# tsmech manual", "",
           "The reference of tsmech's TS types, models, options, file formats and functions, generated from the", "manual blocks in the code. [All options](option-index.md) by name.", ""]
    for kind in ("ts", "model", "options", "format"):
        bl = sorted((b for b in blocks if b.pagekind == kind), key=lambda b: b.page)
        out += [f"## {KIND_TITLE[kind]}", ""]
        if not bl:
            out += ["None yet: see the conventions below for the block that makes one.", ""]
            continue
        for b in bl:
            label = b.typename or b.name
            summary = re.sub(r'^"[\w.\-]+"\s*:\s*', "", b.summary)
            out.append(f"- [{label}]({b.page}) — {prose(summary, links, 'README.md')}")
        out.append("")
    out += ["## Functions", "", "By section of `include/tsmech.h` (and, for developers, of the private headers):", ""]
    for page in sorted(by_page, key=lambda p: (not titles[p][0].startswith("include/"), list(titles).index(p))):
        hdr, section = titles[page]
        title = section if hdr.startswith("include/") else f"Developer: {hdr}"
        n = len(by_page[page])
        out.append(f"- [{title}]({page}) — {n} function{'s' if n > 1 else ''}")
    out += ["", CONVENTIONS]
    return out


def render_option_index(blocks, links):
    out = [GENERATED, "", "# Options", "", "Every option a manual block lists, with the page that documents it.", "",
           "| Option | Page | Description |", "|---|---|---|"]
    rows = []
    for b in blocks:
        for o, it in b.options():
            where = f"[{b.typename or b.name}]({b.page}{'#' + b.anchor if b.anchor else ''})"
            rows.append((o.lower(), o, where, prose(it.text, links, "option-index.md")))
    for _, o, where, text in sorted(rows):
        out.append(f"| `{o}` | {where} | {text} |")
    out += ["", "[Manual index](README.md)", ""]
    return out


# ------------------------------------------------------------------------------------------------


def build(root):
    blocks = read_blocks(root)
    decl, order = assign_pages(blocks, root)
    return blocks, render(blocks, decl, order, root)


def write(pages, outdir):
    if os.path.isdir(outdir):
        shutil.rmtree(outdir)
    for p, text in pages.items():
        path = os.path.join(outdir, p)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)


def compare(pages, outdir):
    """The pages that differ from those in outdir, and those in outdir no block makes."""
    have = {os.path.relpath(f, outdir) for f in glob.glob(os.path.join(outdir, "**", "*"), recursive=True) if os.path.isfile(f)}
    stale = []
    for p, text in sorted(pages.items()):
        path = os.path.join(outdir, p)
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if old != text:
            stale.append((p, old, text))
    extra = sorted(have - set(pages))
    return stale, extra


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))), help="the repository (default: this script's)")
    ap.add_argument("--out", help="the folder to write (default: ROOT/docs/manual)")
    ap.add_argument("--check", action="store_true", help="compare instead of writing; exit 1 if a page is stale")
    ap.add_argument("--list", action="store_true", help="print kind, name, page and source of every block")
    args = ap.parse_args()
    out = args.out or os.path.join(args.root, "docs", "manual")
    blocks, pages = build(args.root)
    if args.list:
        for b in blocks:
            print(f"{b.pagekind:8s} {b.name:40s} {b.page + ('#' + b.anchor if b.anchor else ''):60s} {b.path}:{b.line}")
        return 0
    if args.check:
        stale, extra = compare(pages, out)
        for p, old, new in stale:
            print(f"stale: docs/manual/{p}" if old is not None else f"missing: docs/manual/{p}")
            diff = list(difflib.unified_diff((old or "").split("\n"), new.split("\n"), "committed", "from the blocks", lineterm="", n=1))
            print("\n".join("    " + d for d in diff[:12]) + ("\n    ..." if len(diff) > 12 else ""))
        for p in extra:
            print(f"no block makes: docs/manual/{p}")
        if stale or extra:
            print(f"docs/manual is out of date ({len(stale) + len(extra)} pages): run /usr/bin/python3 tools/manual.py and commit docs/manual")
            return 1
        print(f"docs/manual is up to date: {len(pages)} pages from {len(blocks)} manual blocks")
        return 0
    write(pages, out)
    print(f"wrote {len(pages)} pages from {len(blocks)} manual blocks to {os.path.relpath(out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
