//! The page's files, embedded in the binary: `web/` (the page, written here) and
//! `web/vendor/chessground/` (lichess's board component, vendored unchanged; its README there
//! says from where).

/// The file served at `path`: its content type and bytes.
pub fn asset(path: &str) -> Option<(&'static str, &'static str)> {
    const HTML: &str = "text/html; charset=utf-8";
    const JS: &str = "text/javascript; charset=utf-8";
    const CSS: &str = "text/css; charset=utf-8";
    Some(match path {
        "/" | "/index.html" => (HTML, include_str!("../../web/index.html")),
        "/app.js" => (JS, include_str!("../../web/app.js")),
        "/style.css" => (CSS, include_str!("../../web/style.css")),
        "/vendor/chessground.min.js" => (
            JS,
            include_str!("../../web/vendor/chessground/chessground.min.js"),
        ),
        "/vendor/chessground.base.css" => (
            CSS,
            include_str!("../../web/vendor/chessground/chessground.base.css"),
        ),
        "/vendor/chessground.brown.css" => (
            CSS,
            include_str!("../../web/vendor/chessground/chessground.brown.css"),
        ),
        "/vendor/chessground.cburnett.css" => (
            CSS,
            include_str!("../../web/vendor/chessground/chessground.cburnett.css"),
        ),
        _ => return None,
    })
}
