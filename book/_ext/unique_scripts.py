"""A Sphinx extension of the book's: every script a page loads is included once.

sphinx-thebe registers its configuration script at every `env-before-read-docs`, and a Jupyter
Book build fires that event twice, so each page declared `THEBE_JS_URL` twice and logged a
SyntaxError in the console (sphinx-togglebutton's selector came twice as well). No page of this
book uses thebe; this keeps the first copy of any script that appears more than once: the same
file (an inline script has none, recorded as None or as "") with the same attributes.
"""


def _unique(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, kept = set(), []
    for js in scripts:
        attributes = getattr(js, "attributes", {})
        key = (str(getattr(js, "filename", js) or ""),
               tuple(sorted((k, str(v)) for k, v in attributes.items())))
        if key not in seen:
            seen.add(key)
            kept.append(js)
    scripts[:] = kept


def setup(app):
    app.connect("html-page-context", _unique, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
