-- tools/man/md2man.lua - pandoc filter: a docs/ page becomes a man page.
--
-- Owns: the mapping from the two shapes a tool page in docs/ may have to the
-- sections a man page has, so that docs/ stay the one source.  A page either
-- is written as a man page already,
--
--   # prismc-show(1)                               (dropped: .TH says it)
--   ## NAME / prismc show — list ...               ->  NAME  prismc-show - list ...
--   ## SYNOPSIS, ## DESCRIPTION, ...               ->  .SH SYNOPSIS, ...
--
-- or as a reference page:
--
--   # prismc dump — show a compiled chain        ->  NAME  prismc-dump - show ...
--   ```                                           ->  SYNOPSIS (the first code
--   prismc dump [--stats] ...                          block before any ## heading)
--   ```
--   text before the first ## heading             ->  DESCRIPTION
--   ## Heading / ### Heading                     ->  .SH HEADING / .SS Heading
--   [text](prismc-run.md)                        ->  text (prismc-run(1))
--   [text](language.md#x)                        ->  text (language.md)
--
-- The man page's name and section come from metadata (-M name=prismc-dump
-- -M section=1); `manpages` lists every generated page as "name:section ..."
-- so links between them become cross references.
-- Must not: invent text; a page without the title line is an error.

local name, section, manpages = nil, nil, {}

local function meta_string(v)
	if v == nil then
		return nil
	end
	return pandoc.utils.stringify(v)
end

local function read_meta(meta)
	name = meta_string(meta.name)
	section = meta_string(meta.section) or "1"
	for entry in (meta_string(meta.manpages) or ""):gmatch("%S+") do
		local n, s = entry:match("^(.+):(%d)$")
		if n then
			manpages[n] = s
		end
	end
end

local function link(el)
	local target = el.target:match("^([%w._-]+)%.md") or el.target:match("^docs/([%w._-]+)%.md")
	if not target then
		return nil
	end
	local text = pandoc.utils.stringify(el.content)
	if manpages[target] then
		local ref = target .. "(" .. manpages[target] .. ")"
		if text == ref or text == target then
			return pandoc.Strong({ pandoc.Str(ref) })
		end
		return { pandoc.Span(el.content), pandoc.Space(), pandoc.Str("(" .. ref .. ")") }
	end
	if text == target .. ".md" then
		return pandoc.Span(el.content)
	end
	return { pandoc.Span(el.content), pandoc.Space(), pandoc.Str("(" .. target .. ".md)") }
end

local function image(el)
	return el.caption
end

-- Columns sized by tbl from their contents, not by the markdown's dashes
-- (docs/ write every separator as |---|).
local function table_auto(el)
	for k, spec in ipairs(el.colspecs) do
		el.colspecs[k] = { spec[1], nil }
	end
	return el
end

local function header(text)
	return pandoc.Header(1, { pandoc.Str(text) })
end

local function summary_of(text)
	return text:match("^.-%s+\u{2014}%s+(.+)$") or text:match("^.-%s+%-%s+(.+)$")
end

local function name_para(summary)
	return pandoc.Para({ pandoc.Str(name), pandoc.Space(), pandoc.Str("-"), pandoc.Space(), pandoc.Str(summary) })
end

-- A page written as a man page: its ## sections become the man sections
-- (### subsections), and the NAME paragraph is put as whatis(1) reads it.
local function man_shaped(blocks)
	local out, in_name = {}, false
	for j = 2, #blocks do
		local b = blocks[j]
		if b.t == "Header" then
			in_name = pandoc.utils.stringify(b.content) == "NAME"
			b = pandoc.Header(b.level == 2 and 1 or 2, b.content)
		elseif in_name and b.t == "Para" then
			local summary = summary_of(pandoc.utils.stringify(b.content))
			if not summary then
				error("md2man: the NAME paragraph has no ' — summary'")
			end
			b = name_para(summary)
			in_name = false
		end
		out[#out + 1] = b
	end
	return out
end

-- A reference page: "# prismc dump — summary", a synopsis block, text, ## sections.
local function reference_shaped(blocks, title)
	local summary = summary_of(title)
	if not summary then
		error("md2man: title '" .. title .. "' has no ' — summary'")
	end
	local out = { header("NAME"), name_para(summary) }
	local i = 2
	if blocks[i] and blocks[i].t == "CodeBlock" then
		out[#out + 1] = header("SYNOPSIS")
		out[#out + 1] = blocks[i]
		i = i + 1
	end
	if blocks[i] and blocks[i].t ~= "Header" then
		out[#out + 1] = header("DESCRIPTION")
	end
	for j = i, #blocks do
		local b = blocks[j]
		if b.t == "Header" then
			if b.level == 2 then
				b = pandoc.Header(1, b.content)
			else
				b = pandoc.Header(2, b.content)
			end
		end
		out[#out + 1] = b
	end
	return out
end

-- One function, so that the metadata is read before any link is rewritten
-- (pandoc runs inline filters before Meta).
function Pandoc(doc)
	read_meta(doc.meta)
	local blocks = {}
	for k, b in ipairs(doc.blocks) do
		blocks[k] = pandoc.walk_block(b, { Link = link, Image = image, Table = table_auto })
	end
	local first = blocks[1]
	if not first or first.t ~= "Header" or first.level ~= 1 then
		error("md2man: the page must start with '# NAME — summary'")
	end
	local title = pandoc.utils.stringify(first.content)
	if title:match("^[%w._-]+%(%d%)$") then
		doc.blocks = man_shaped(blocks)
	else
		doc.blocks = reference_shaped(blocks, title)
	end
	doc.meta.title = pandoc.MetaString(name)
	doc.meta.section = pandoc.MetaString(section)
	doc.meta.header = pandoc.MetaString("prism manual")
	return doc
end
