"""The text rules every layer shares: where a sentence ends, which words count and how
they are stemmed, CJK characters and Chinese words, a line without its Markdown. The
ground floor: pure functions on strings that import the standard library, text libraries
(jieba, spaCy) and `errors`, nothing else of ours — so every layer may import them, the
vault core's token estimate and the index's keyword search included, and each rule is
written once (tests/integration/test_architecture.py holds both; docs/architecture.md).

* `cjk.py` — the one definition of CJK characters and its three named variants
  (`is_cjk` / `HAN_CHARS`, `is_cjk_or_kana` / `CJK_OR_KANA_CHARS`, `CJK_CHARS`),
  `cjk_share`, `language_of`, `chinese_segmenter`, `chinese_words`;
* `markup.py` — `plain` (material), `reader_text` (a note: links by their names);
* `sentences.py` — `split_sentences` (material), `split_note_line` (a line of a note);
* `words.py` — `stem`; one stopword list per language (`ENGLISH_STOPWORDS`,
  `CHINESE_STOPWORDS` and `CJK_FUNCTION_CHARS`, `FUNCTION_WORDS`) and the lists derived
  from it, each named for its reader (`STOPWORDS`, `SEARCH_STOPWORDS`,
  `COMPARISON_STOPWORDS`, `TOPIC_STOPWORDS`); `tokens`, `overlap` (dream's content
  tokens), `word_spans`, `content_words` (consolidate's words), `GENERIC_HEADING`;
* `values.py` — `statement_values` (the numbers, identifiers, names, commands and dates a
  note's statements give: what a merge must keep);
* `nlp.py` — the trained pipelines people's words are read with: spaCy's small English
  pipeline (`english_docs`) and jieba's parts of speech (`chinese_tagged`), loaded once,
  on first use (imported from `textrules.nlp`, never here: loading takes a second).

Where dream and consolidate read differently, each rule has one name per reading, side by
side in its module, and the module says why both exist.
"""

from .cjk import (
    CHINESE_SHARE,
    CJK_CHARS,
    CJK_OR_KANA_CHARS,
    HAN_CHARS,
    chinese_segmenter,
    chinese_words,
    cjk_share,
    is_cjk,
    is_cjk_or_kana,
    language_of,
)
from .markup import WIKILINK, link_name, plain, reader_text
from .sentences import split_note_line, split_sentences
from .values import statement_values
from .words import (
    CHINESE_STOPWORDS,
    CJK_FUNCTION_CHARS,
    COMPARISON_STOPWORDS,
    ENGLISH_STOPWORDS,
    GENERIC_HEADING,
    SEARCH_STOPWORDS,
    STOPWORDS,
    TOPIC_STOPWORDS,
    content_words,
    one_word_cut_short,
    overlap,
    stem,
    tokens,
    word_spans,
)

__all__ = [
    "is_cjk", "is_cjk_or_kana", "HAN_CHARS", "CJK_OR_KANA_CHARS", "CJK_CHARS", "cjk_share",
    "CHINESE_SHARE", "language_of", "chinese_segmenter", "chinese_words",
    "plain", "reader_text", "WIKILINK", "link_name",
    "split_sentences", "split_note_line",
    "stem", "ENGLISH_STOPWORDS", "STOPWORDS", "SEARCH_STOPWORDS", "COMPARISON_STOPWORDS",
    "TOPIC_STOPWORDS", "CHINESE_STOPWORDS", "CJK_FUNCTION_CHARS", "tokens", "overlap",
    "word_spans", "content_words", "GENERIC_HEADING", "statement_values", "one_word_cut_short",
]
