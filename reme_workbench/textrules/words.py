"""Words: stopwords, a crude English stem, content tokens and content words.

* `stem(word)` — plural and tense endings off, so "merges", "merged", "merging" and
  "merge" meet (both offline brains, and merge's topic words).
* The stopwords: one list per language — `ENGLISH_STOPWORDS` (its function words and
  its vague words), `CHINESE_STOPWORDS` with `CJK_FUNCTION_CHARS`, `FUNCTION_WORDS` for
  Portuguese, Spanish, French and German — and the lists derived from the English one
  by a named set, each for a reason written beside it: `STOPWORDS` (dream),
  `SEARCH_STOPWORDS` (the keyword search), `COMPARISON_STOPWORDS` (consolidate's
  comparisons), `TOPIC_STOPWORDS` (consolidate's topic words).
* `tokens(text)` — material's content tokens as dream counts them: stemmed Latin words,
  numbers of three or more digits, CJK character bigrams; `STOPWORDS`, dates, small
  numbers and markup dropped. `overlap(a, b)` is their overlap coefficient.
* `word_spans(text)` and `content_words(text)` — a note's words as consolidate compares
  and names them: `COMPARISON_STOPWORDS` keeps what changes a fact ("not", "only",
  "first", "before", every number), Chinese cut into jieba's words (a word made only of
  `CJK_FUNCTION_CHARS` dropped; not `CHINESE_STOPWORDS`, which holds the negations and
  conditions a statement turns on: 没有, 不是, 如果, 之前). Words are whole in any
  script ("Autômatos", "funções", "Straße").
* `FUNCTION_WORDS` — the function words of Portuguese, Spanish, French and German
  (articles, prepositions and their contractions, pronouns, conjunctions, the commonest
  forms of "be" and "have"): `word_spans` reads them as stopwords, so no hub is named
  "de" or "Das". Closed-class words only, written here rather than taken from spaCy's
  `spacy.lang.<xx>.stop_words`: those lists hold content words a course is about
  (Portuguese "sistema", "estado", "tipo", "valor", "número"), and importing them
  imports spaCy (seconds). Negations ("não", "nicht", "pas") and limiting words ("só",
  "nur") are kept, as `COMPARISON_STOPWORDS` keeps "not" and "only".
* `CJK_FUNCTION_CHARS` — Chinese function characters ("的", "了", "是") dropped before
  bigrams and words, so 用中文回我 ~ 用中文回复 share theirs.
* `GENERIC_HEADING` — headings that name no topic of their own ("Overview", "Steps",
  "注意事项"): neither a hub's nor a split child's name.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from .cjk import chinese_words, is_cjk, is_cjk_or_kana
from .markup import plain, reader_text

__all__ = [
    "stem", "ENGLISH_FUNCTION_WORDS", "ENGLISH_VAGUE_WORDS", "ENGLISH_STOPWORDS", "KEPT_IN_DREAM",
    "STOPWORDS",
    "SEARCH_STOPWORDS", "KEPT_IN_COMPARISON", "COMPARISON_STOPWORDS", "NOTE_FORMAT_WORDS",
    "TOPIC_STOPWORDS", "CHINESE_STOPWORDS", "FUNCTION_WORDS", "CJK_FUNCTION_CHARS",
    "tokens", "overlap", "word_spans", "content_words", "GENERIC_HEADING", "one_word_cut_short",
]


def stem(word: str) -> str:
    # Crude on purpose: "merges", "merged", "merging" and "merge" must meet.
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"  # summaries -> summary
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            word = word[: -len(suffix)]
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


# --- stopwords: one list per language, and the lists derived from it ----------------------
#
# English has one list, `ENGLISH_STOPWORDS`, written in two parts: the function words
# (the common NLTK-style list, with the pieces a tokenizer leaves of contractions:
# "don't" -> "don" + "t") and the vague words — open-class words and fillers that say
# nothing about what a text is about ("time", "said", "get", "first", "okay"). Each
# rule that drops stopwords reads this list, or a list derived from it by a named set,
# for the reason written beside it:
#
# * `STOPWORDS` — dream's content tokens (`tokens`): the list less `KEPT_IN_DREAM`,
#   the prepositions and pronouns its offline brain was tuned counting.
# * `SEARCH_STOPWORDS` — the keyword search's query (index/keyword.py): the function
#   words only. A question asks about the vague words ("what did she do *last week*",
#   "when did he *first* *say* it") and bm25's idf weighs them by how rare they are in
#   the vault; LoCoMo's keyword recall was measured with this list.
# * `COMPARISON_STOPWORDS` — the list less `KEPT_IN_COMPARISON`: consolidate compares
#   and names notes by their words, and a statement that drops "not", "before", "only"
#   or "two" is another statement.
# * `TOPIC_STOPWORDS` — the list and `NOTE_FORMAT_WORDS`: a note's topic words, the
#   words consolidate pairs notes by (consolidate/candidates.py).
#
# Chinese has one list of function words, `CHINESE_STOPWORDS` (of two characters; jieba
# keeps them as words), and its characters, `CJK_FUNCTION_CHARS`, dropped before
# bigrams and words are taken. The other languages' function words are `FUNCTION_WORDS`.

ENGLISH_FUNCTION_WORDS = frozenset(
    """a about above after again against ain all am an and any are aren as at be because
    been before being below between both but by can couldn d did didn do does doesn doing
    don down during each few for from further had hadn has hasn have haven having he her
    here hers herself him himself his how i if in into is isn it its itself just ll m ma me
    mightn more most mustn my myself needn no nor not now o of off on once only or other
    our ours ourselves out over own re s same shan she should shouldn so some such t than
    that the their theirs them themselves then there these they this those through to too
    under until up ve very was wasn we were weren what when where which while who whom why
    will with won would wouldn y you your yours yourself yourselves""".split()
)
ENGLISH_VAGUE_WORDS = frozenset(
    """already also although ask asked asks back bit came come could day days done else
    even ever every first get gets go going gone got including instead it's last let lets
    like lot made make many may might much must new next ok okay old one onto per plus put
    rather really repeated restated said saw say says see seen shall since still take tell
    thing things though three time times today told tomorrow took two unless use used uses
    using via vs want wants way week weeks well went whether whose yes yesterday yet""".split()
)
ENGLISH_STOPWORDS = ENGLISH_FUNCTION_WORDS | ENGLISH_VAGUE_WORDS

# Dream counts these function words (and contraction pieces) as content tokens, as its
# list always did: the offline dream brain is tuned on them, and dropping them changes
# what the sample vault dreams ("during" alone: digest/procedure/database-migrations.md
# is no longer written).
KEPT_IN_DREAM = frozenset(
    """above against below between during further through hers herself himself itself
    myself ours ourselves theirs themselves yours yourself yourselves ain couldn hadn hasn
    haven ll ma mightn mustn needn re shan shouldn ve weren d m o y""".split()
)
STOPWORDS = ENGLISH_STOPWORDS - KEPT_IN_DREAM

SEARCH_STOPWORDS = ENGLISH_FUNCTION_WORDS

# What changes a fact, kept as a word when notes are compared: negations (and the
# negative contraction pieces: "didn't" -> "didn"), limits and sameness, order and time,
# counts, relations of place, cause, whose it is, and reported speech and acts.
KEPT_IN_COMPARISON = frozenset(
    """no nor not ain aren couldn didn doesn don hadn hasn haven isn mightn mustn needn
    shan shouldn wasn weren won wouldn
    only own same every instead rather including unless whether though although vs
    before after until while during since first last next new old back today tomorrow
    yesterday day days week weeks time times
    one two three
    above below between through against further
    because
    hers herself himself itself myself ours ourselves theirs themselves yours yourself
    yourselves
    ask asked asks said say says tell told saw seen come came go going gone went take took
    put let lets want wants repeated restated""".split()
)
COMPARISON_STOPWORDS = ENGLISH_STOPWORDS - KEPT_IN_COMPARISON

# Words of notes' format and prose that name no topic: the Markdown extension, "note",
# the abbreviations ("e.g." -> "e", "g"), and the adverbs of frequency.
NOTE_FORMAT_WORDS = frozenset("md note notes etc e g ie eg always never".split())
TOPIC_STOPWORDS = ENGLISH_STOPWORDS | NOTE_FORMAT_WORDS

CHINESE_STOPWORDS = frozenset(
    "我们 你们 他们 她们 它们 这个 那个 这些 那些 一个 一些 可以 没有 因为 所以 但是 如果 "
    "就是 还是 已经 然后 或者 以及 并且 而且 不是 什么 怎么 这样 那样 时候 进行 需要 通过 "
    "对于 关于 其中 之后 之前 以后 以前 为了 由于 虽然 只要 即使 例如 比如 另外 此外 同时".split()
)
CJK_FUNCTION_CHARS = frozenset("的之了是在我你她他它们就都也和与及或把被很再又还这那个吧呢吗啊呀哦嗯着过给让")

# --- material's tokens --------------------------------------------------------------------

_WORD = re.compile(r"[a-z0-9]+(?:[-_'][a-z0-9]+)*")
_PREFIXED = re.compile(r"^(non|auto|re|pre|un|multi|sub|self|anti|co)-([a-z]{3,})$")
_DATE_LIKE = re.compile(r"^(\d{1,2}|\d{1,4}(-\d{1,2}){1,2})$")

def tokens(text: str, *, split: bool = False) -> frozenset[str]:
    """Content tokens: stemmed Latin words, numbers of three or more digits, CJK character
    bigrams; stopwords, dates and markup dropped. A hyphenated identifier is one token
    ("non-hotfix" also gives "hotfix"); `split=True` cuts every one into its words, so
    text can be compared with file-name slugs."""
    text = plain(text).lower()
    out: set[str] = set()
    for word in _WORD.findall(text):
        word = word.replace("'", "")
        parts = [word]
        m = _PREFIXED.match(word)
        if split and ("-" in word or "_" in word):  # to meet a slug: payments-api-listens
            parts = re.split(r"[-_]", word)
        elif m:  # "non-hotfix" also says "hotfix"; "payments-api" stays one identifier
            parts.append(m.group(2))
        for part in parts:
            if part in STOPWORDS or len(part) < 2 or _DATE_LIKE.match(part):
                continue  # dates and small numbers say when, not what
            out.add(part if part.isdigit() or "-" in part or "_" in part else stem(part))
    run: list[str] = []
    for ch in text + " ":
        if is_cjk(ch):
            if ch not in CJK_FUNCTION_CHARS:
                run.append(ch)
            continue
        if len(run) == 1:
            out.add(run[0])
        out.update(run[k] + run[k + 1] for k in range(len(run) - 1))
        run = []
    return frozenset(out)


def overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """Overlap coefficient |a∩b| / min(|a|, |b|): 1.0 when one set contains the other."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


# --- a note's words, as consolidate compares and names them ------------------------------

# Function words of other languages a vault is written in (module doc). A word that is
# also an English content word is left out ("war", "son", "car", "sin", "era", "hat",
# "man"), and so are the negations and limiting words.
FUNCTION_WORDS = frozenset(
    # Portuguese
    """o a os as um uma uns umas de do da dos das em no na nos nas num numa ao aos à às
    pelo pela pelos pelas por para pra pro com sem sob sobre entre até após desde contra
    e ou nem mas porém que se quem qual quais cujo cuja como quando onde porque pois
    então assim também já ainda apenas ele ela eles elas lhe lhes me te nós vós você
    vocês seu sua seus suas meu minha meus minhas teu tua nosso nossa isso isto aquilo
    esse essa esses essas este esta estes estas aquele aquela aqueles aquelas dele dela
    deles delas nesse nessa neste nesta nisso nisto naquele naquela é são ser foi foram
    era eram está estão estar ter tem têm tinha há pode podem deve devem muito muita
    muitos muitas mais menos cada todo toda todos todas outro outra outros outras mesmo
    mesma""".split()
    # Spanish
    + """el la los las lo un una unos unas del al de en con por para sobre entre hasta
    desde hacia según y o u e ni pero sino que quien quienes cual cuales cuyo como cuando
    donde porque pues si se su sus mi mis tu tus nuestro nuestra nuestros nuestras le les
    me te nos os este esta estos estas ese esa esos esas aquel aquella aquellos aquellas
    es son ser está están estar fue fueron ha han hay muy más menos también ya otro otra
    otros otras todo toda todos todas cada mismo misma""".split()
    # French
    + """le la les l un une des du de d au aux et ou mais donc ni à en dans par pour sur
    sous avec sans entre chez vers ce cet cette ces sa ses leur leurs ma mes ta tes notre
    nos votre vos qui que qu quoi dont où il elle ils elles nous vous je tu se est sont
    être été avoir ont fait comme très aussi tout tous toute toutes même autre autres
    quand si y""".split()
    # German
    + """der die das den dem des ein eine einer eines einem einen und oder aber doch im
    ins zu zum zur mit von vom für auf bei aus nach über unter vor durch gegen um bis ist
    sind waren sein seine hat haben wird werden wurde wie als auch noch schon sehr ich du
    er sie es wir ihr dass daß wenn weil ob dieser diese dieses jeder jede jedes alle
    sich""".split()
)


def _script_runs(piece: str) -> list[tuple[str, bool]]:
    """`piece` cut where it passes between CJK (or kana) and other letters: (run, is CJK)."""
    runs: list[tuple[str, bool]] = []
    for ch in piece:
        cjk = is_cjk_or_kana(ch)
        if runs and runs[-1][1] == cjk:
            runs[-1] = (runs[-1][0] + ch, cjk)
        else:
            runs.append((ch, cjk))
    return runs


def word_spans(text: str) -> list[tuple[str, str]]:
    """The words of `text` in order, each as (surface form, content word or "" for a
    stopword): words of letters and digits in any script, whole ("Autômatos",
    "funções"; `+` and `#` may end one: C++, C#), cut at anything else (so a slug
    `pgbouncer-1-22` is the words pgbouncer, 1, 22); CJK runs cut by jieba. Stopwords are
    `COMPARISON_STOPWORDS`, `FUNCTION_WORDS` and single letters."""
    out: list[tuple[str, str]] = []
    # NFC: a name typed on one system and a file name from another spell "ô" alike
    for m in re.finditer(r"[^\W_]+[+#]*", unicodedata.normalize("NFC", text)):
        for run, cjk in _script_runs(m.group(0)):
            if not cjk:
                low = run.lower()
                stop = (low in COMPARISON_STOPWORDS or low in FUNCTION_WORDS
                        or (len(low) < 2 and not low.isdigit()))
                out.append((run, "" if stop else stem(low)))
                continue
            for w in chinese_words(run):
                keep = len(w) >= 2 and not all(c in CJK_FUNCTION_CHARS for c in w)
                out.append((w, w if keep else ""))
    return out


def content_words(text: str) -> frozenset[str]:
    """Content words of `text` (links as their visible text): stemmed Latin words without
    stopwords, jieba's Chinese words of two or more characters."""
    return frozenset(c for _, c in word_spans(reader_text(text)) if c)


# Headings that name no topic of their own (dream's GENERIC_SECTION, trimmed).
GENERIC_HEADING = re.compile(
    r"^(overview|introduction|intro|about|summary|background|context|details|notes?|examples?|"
    r"usage|tips?|faq|limitations?|troubleshooting|caveats?|see also|related|references?|more|"
    r"misc(ellaneous)?|other|general|basics|steps|when|watch out|how it works|next steps|"
    r"概述|简介|介绍|概览|示例|例子|用法|注意事项|注意|提示|限制|常见问题|参见|相关|其他|更多|基础|步骤)$",
    re.I,
)


def one_word_cut_short(a: Sequence[str], b: Sequence[str]) -> bool:
    """Two phrases of the same words but one, written whole in one and cut short in the
    other ("dance comp" / "dance competition"): the shared words make the clipping one
    word, where a word alone ("art" / "artist") may be a word of its own. Read by the
    offline brain's topics and by dream's topic keys alike."""
    if len(a) != len(b) or len(a) < 2:
        return False
    differ = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    if len(differ) != 1:
        return False
    short, long_ = sorted(differ[0], key=len)
    return len(short) >= 3 and long_.startswith(short)
