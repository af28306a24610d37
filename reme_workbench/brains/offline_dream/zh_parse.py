"""jieba's parse of a Chinese clause, mended where a word's form says otherwise than its
tag (docs/spec.md §5.2.8) — the layer `zh_statements` reads every clause through.

jieba's dictionary tags a word the same wherever it stands, and cuts a compound it lacks
into characters. `parse_clause` gives a clause's (word, tag) pairs with the form winning:
a month or a day (七月份/nz, 十五号) is a time; a nickname cut in two or doubled is one
name (阿/j 凯/nr, 朵朵/q); a character before an aspect particle or after an adverb is a
verb (换/nz 了, 都问/n); a verb-object word in the subject's place is the two (打网球/n);
two one-character words jieba's new-word model joins are one compound noun (柴/nr 犬/ng).

The closed classes of grammar words these rules read sit beside them; `zh_statements`
reads them too.
"""

from __future__ import annotations

import re

from ...textrules import HAN_CHARS
from ...textrules.cjk import chinese_words
from ...textrules.nlp import chinese_tagged

__all__ = ["AUX", "INTENT", "KIN_CHARS", "KIN_WORDS", "LIGHT", "NOUNS", "OPENING", "alone", "clauses", "is_verb",
           "parse_clause", "counts_an_act", "a_not_a", "a_state", "placed", "called_name", "TIMES", "DEGREE",
           "intent_after", "one_who", "praised_act", "negated_act",
           "done_for", "headless_count", "latin_thing", "moved_to"]

# words the dictionary tags as nouns (or, after a count, as the verbs and adjectives read
# as nouns there) that name no thing — a word it tags otherwise needs no place here: the
# pronouns (这个/r), the units of measure (公里/q), the times (星期/t) are never a noun
LIGHT = frozenset(
    "时候 事情 事 东西 感觉 时间 地方 事儿 样子 问题 一下 有点 一点 主意 人 试试".split()) | frozenset(
    # greetings, thanks and acknowledgments (晚安/n, 谢谢/nr, 明白/nr): no thing named
    "晚安 早安 午安 拜拜 再见 谢谢 感谢 多谢 辛苦 明白 收到 了解".split()) | frozenset(
    # units of measure the dictionary tags as nouns (三个小时/n, 十个钟头/n): how much, no thing
    "小时 秒钟 礼拜 钟头".split())
NOUNS = ("n", "nz", "ns", "nt", "nr", "vn", "nw", "ng", "nrt", "nrfg")

# clause breaks: punctuation, a space between Chinese words (texted: "好的 这周六去…"), and
# emoji, which texting puts where punctuation goes ("迷上烘焙了🍰 每周末都在家烤")
_CLAUSE = re.compile(rf"[，,；;：:。！？!?]|(?<=[{HAN_CHARS}])\s+(?=[{HAN_CHARS}])"
                     r"|[\U0001F300-\U0001FAFF\u2600-\u27BF\uFE0F]+\s*")

INTENT = frozenset(("想", "打算", "准备", "计划", "要", "想要", "决定"))  # what one means to do

# kin words as a sentence's subject: Chinese says 儿子 for "my son" (a closed class)
KIN_WORDS = frozenset((
    "儿子", "女儿", "闺女", "孩子", "老公", "老婆", "丈夫", "妻子", "媳妇", "爱人", "老伴",
    "未婚夫", "未婚妻", "男朋友", "女朋友", "对象", "妈妈", "爸爸", "老妈", "老爸",
    "父亲", "母亲", "爸妈", "父母", "爷爷", "奶奶", "外婆", "外公", "姥姥", "姥爷", "孙子", "孙女",
    "外孙", "外孙女", "宝宝", "哥哥", "姐姐", "弟弟", "妹妹", "公公", "婆婆", "岳父", "岳母", "女婿",
    "儿媳", "儿媳妇", "舅舅", "姑姑", "姨妈", "侄子", "侄女", "外甥", "外甥女"))

# the kin words of one character that follow 我 in one word (我妈, 我爸): a closed class
KIN_CHARS = frozenset("妈爸哥姐弟妹")

# the aspect particles: the word before one is a verb, whatever the dictionary tags it
# (换/nz 了份兼职); so is one character before a result complement (挪/ns 到周五)
_PARTICLES = ("了", "过", "着")
_ZH_RESULT = ("到", "给", "成", "完")

# the classifiers of an act's times, not of things (一趟, 两次, 三遍): a closed class
TIMES = ("趟", "次", "遍", "回", "番", "顿")

# the adverbs of degree (很凉, 比较忙): what follows is a state, not an act (a closed class)
DEGREE = frozenset(("很", "比较", "挺", "有点", "太", "特别", "非常", "更", "最", "蛮", "超"))

# the prefixes of a nickname (小周, 老李, 阿凯): a closed class
_ZH_NAME_PREFIX = frozenset(("小", "老", "阿"))
# a month, a day of the month, a year by its number (七月份, 15号, 三月): a time by its form
_DATE_WORD = re.compile(r"^[0-9０-９一二三四五六七八九十两]+(?:月份?|号|日|年)$")

# what may stand before 我 when it is the subject: connectives, adverbs, times, places of
# time (方位), modal particles and interjections (另外我…, 最近我…, 哎我…)
OPENING = ("c", "d", "t", "f", "y", "e", "o")

# what may come before a verb and make it no activity taken up: a wish, a plan, a modal, a
# going or coming, a causative (想出去, 要去, 让他来) — a closed class of auxiliary verbs
AUX = frozenset(("会", "能", "能够", "可以", "应该", "需要", "得", "去", "来", "让", "叫", "帮",
                 "敢", "肯", "该", "必须", "不用", "不想", "不要"))


def is_verb(flag: str) -> bool:
    """A verb's tag — not `vn`, a noun the dictionary links to a verb (教练/vn)."""
    return flag.startswith("v") and flag != "vn"


# tags of a character that may open a compound noun: a noun, a name, an adjective, a
# distinguishing word, a morpheme — an adverb only where the clause wants a noun (先/d 学/n
# is "learn first", as the model's 先学 is not; `_retagged` reads the noun after an adverb
# as a verb)
_COMPOUND_HEAD = ("n", "nr", "ng", "nz", "a", "b", "j", "ag", "zg")


def _compounds(tagged: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Two one-character words that jieba's new-word model (its HMM, `chinese_words`) cuts
    as one word, where the clause's grammar makes them one (`_pair_joins`): a compound
    noun the dictionary lacks (柴/nr 犬/ng → 柴犬, 蓝/nr 猫/n → 蓝猫, 边/d 牧/n after 我家
    → 边牧, 社/n 恐/d → 社恐)."""
    pairs = [i for i in range(len(tagged) - 1) if _pair_joins(tagged, i)]
    if not pairs:
        return tagged
    out, skip = [], False
    for i, (word, flag) in enumerate(tagged):
        # the model reads from the pair on (what came before may pull its first
        # character into another word: 做完试/水)
        if skip:
            skip = False
        elif i in pairs and (_counted(tagged, i) or _framed(tagged, i) or (i and _home(tagged[i - 1])) or chinese_words(
                "".join(w for w, _ in tagged[i:]))[:1] == (word + tagged[i + 1][0],)):
            # neither half a noun to the dictionary, opening a clause before 在…: a name (旺/a
            # 仔/zg 在岸上: the dog's), as a name of a person's is (nr)
            name = i == 0 and flag not in NOUNS and tagged[i + 1][1] not in NOUNS and i + 2 < len(tagged) \
                and tagged[i + 2][1] == "p"
            out.append((word + tagged[i + 1][0], "nr" if name else "n"))
            skip = True
        else:
            out.append((word, flag))
    return out


# the numerals (a number is no part of a compound noun: 两/m 猫 is two cats; 多/m 肉 is one)
_NUMERAL = frozenset("0123456789０１２３４５６７８９一二三四五六七八九十两百千万亿半几")


def _pair_joins(tagged: list[tuple[str, str]], i: int) -> bool:
    """Words i and i + 1 are one character each and may be one word, by their tags and
    their place: a noun-like head before a noun (蓝/nr 猫/n), or a non-numeral 多/m before
    one that names a thing (多肉; 多人 is "many people"); an adverb's character before a noun where the clause wants a noun — after
    的, a count or a home pronoun (我家边/d 牧/n: an adverb modifies a verb, never a
    thing there; 想先/d 学/n is "learn first"); a verb and a noun (试/v 水/n, 减/v 脂/n)
    only before a noun they name a kind of (试水试验) or ending the clause (想减脂: the
    activity), never after a verb of wishing or going (要/v 学/n 游泳: "will learn");
    and any head before an adverb's character with nothing after it to modify (社/n 恐/d
    ending the clause or before 的: 我有点社恐, 社恐的人)."""
    (head, hflag), (tail, tflag) = tagged[i], tagged[i + 1]
    if len(head) != 1 or len(tail) != 1:
        return False
    after = tagged[i + 2] if i + 2 < len(tagged) else ("", "")
    before = tagged[i - 1] if i else ("", "")
    if tflag == "d":
        return hflag in NOUNS and after[1] in ("", "uj", "x", "y")
    if hflag in _COMPOUND_HEAD and not [f for _, f in tagged[:i] if f not in ("eng", "x")] \
            and (after[1] == "t" or (after[1] == "p" and len(after[0]) == 1) or (
                after[0] in ("这", "那") and i + 3 < len(tagged) and tagged[i + 3][1] == "m")):
        # 奶/zg 盖/v 那几天…, 旺/a 仔/zg 在岸上…: the clause's topic, before when or where
        # (the model reads one word)
        return True
    if (_counted(tagged, i) or _framed(tagged, i)) and is_verb(hflag) and tflag in ("n", "ng", "zg"):
        return True  # 买个跑/v 轮/zg: a classifier counts a thing, so what follows it is one
    if hflag == "nr" and tflag in ("a", "ag") and _home(before):
        return True  # 家里柯/nr 基/a, 我家柯/nr 基/a: the home's thing, not a surname and a quality
    if tflag not in ("n", "ng"):
        return False
    if hflag in _COMPOUND_HEAD or (hflag == "m" and head not in _NUMERAL and tail not in LIGHT):
        return True
    if hflag == "d":
        return before[1] in ("uj", "m", "q", "mq") or (before[1] == "r" and before[0].endswith("家"))
    return hflag == "v" and (not after[0] or after[1] in ("n", "vn")) \
        and head not in INTENT and head not in AUX


def _every(word: str) -> bool:
    """每 and a time in one word of the dictionary's (每周六/l, 每天晚上/i): when, as a habit."""
    rest = chinese_tagged(word[1:]) if word[:1] == "每" and len(word) > 2 else []
    return bool(rest) and rest[-1][1] in ("t", "tg") and all(f in ("t", "tg", "q", "m") for _, f in rest)


def counts_an_act(tagged: list[tuple[str, str]]) -> bool:
    """The clause's last verb is of one character and only 了, a time or a count follows it
    (学了一年半, 梳一次): how long or how often one does it — its object, left out, is the
    thing named before (Chinese does not say it again)."""
    at = max((i for i, (_, f) in enumerate(tagged) if is_verb(f)), default=-1)
    after = [f for _, f in tagged[at + 1:]]
    return at >= 0 and len(tagged[at][0]) == 1 and any(f in ("t", "m", "mq") for f in after) \
        and all(f in ("ul", "t", "m", "q", "mq") for f in after)


def _counted(tagged: list[tuple[str, str]], i: int) -> bool:
    """Word i comes right after a classifier (个/q): it opens the thing counted."""
    return i > 0 and tagged[i - 1][1] in ("q", "mq")


def _framed(tagged: list[tuple[str, str]], i: int) -> bool:
    """Words i and i + 1 stand between 在 and a locative (在跑/v 轮/zg 上/f): a place, a thing."""
    return i > 0 and tagged[i - 1][0] == "在" and i + 2 < len(tagged) and tagged[i + 2][1] == "f" \
        and len(tagged[i + 2][0]) == 1


def _home(word: tuple[str, str]) -> bool:
    """A word of one's home before a thing (我家, 家里, 家中)."""
    return (word[1] == "r" and word[0].endswith("家")) or word[0] in ("家里", "家中")


def _retagged(tagged: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The dictionary's tags mended where the form says otherwise: a month or a day
    (七月份/nz, 十五号) is a time; a nickname cut in two (阿/j 凯/nr) or doubled (朵朵/q)
    is a name; one
    character tagged as a noun right before an aspect particle is a verb (换/nz 了份兼职:
    了, 过, 着 follow verbs); and in the subject's place — first, after times and adverbs
    only — a word the dictionary lists whole as a noun that is a verb and its object
    (打网球/n: 打/v + 网球/n) is the act the clause goes on about (最近打网球手腕疼)."""
    out: list[tuple[str, str]] = []
    opening = True
    tagged = _compounds(tagged)
    skip = -1  # a word already read with the one before it
    for i, (word, flag) in enumerate(tagged):
        if i == skip:
            continue
        if out and out[-1][1] == "t" and _DATE_WORD.match(out[-1][0]) and not out[-1][0].endswith(
                ("月", "月份", "年")) and len(word) == 1 and flag in ("n", "ng"):
            out[-1] = (out[-1][0] + word, "n")  # 九号/t 线/n: a numbered thing, no date
        elif _DATE_WORD.match(word) or _every(word) or (flag == "r" and len(word) == 2 and word[0] in "这那"
                                        and (alone("今" + word[1]) == "t" or word[1] in TIMES)):
            out.append((word, "t"))  # 那天/r 我…, 这次/r: "that day" says when, as 今天 does
        elif out and out[-1][0] in ("这", "那") and out[-1][1] in ("r", "c") and (
                word in TIMES or (flag == "m" and word.endswith(("天", "周", "个月", "年")))):
            out[-1] = (out[-1][0] + word, "t")  # 这/r 趟/zg, 那/r 几天/m: "this time", "those days"
        elif word == "当" and out and i + 1 < len(tagged) and tagged[i + 1][1] in NOUNS:
            out.append((word, "v"))  # 诊所当/t 物理治疗师: "work as" mid-clause, "when" opens one
        elif not out and flag == "eng" and word.islower():
            out.append((word, "e"))  # "ok 猫那几天…", "perfect": a texted interjection, no thing
        elif out and out[-1][0] in ("我", "我们") and len(word) == 2 and word[0] in KIN_CHARS \
                and flag in NOUNS and alone(word[1]) in NOUNS:
            out += [(word[0], "n"), (word[1], alone(word[1]))]  # 我爸腰/n 不好: 爸, then 腰
        elif len(word) == 2 and word[0] == word[1] and i + 1 < len(tagged) and tagged[i + 1][1] == "r":
            out.append((word, "v"))  # 问问/n 我姐: a verb doubled ("ask"), as it takes a pronoun
        elif len(word) == 2 and word[0] == word[1] and flag in ("q", "n", "nz", "a", "ng") \
                and word not in KIN_WORDS and word not in LIGHT:
            out.append((word, "nr"))  # 朵朵/q, 乐乐/a: a doubled nickname
        elif flag == "vn" and len(word) == 2 and word[0] in "有没" and is_verb(alone(word[0])):
            out.append((word, "v"))  # 有空/vn, 没空: having (no) time, a predicate — no thing
        elif flag in ("vn", "nrt") and i + 1 < len(tagged) and tagged[i + 1][1] == "r":
            out.append((word, "v"))  # 发给/vn 我, 拜托/nrt 我: a verb, as it takes a pronoun
        elif out and flag == "x" and len(word) == 1 and re.match(f"[{HAN_CHARS}]", word) \
                and len(out[-1][0]) == 1 and out[-1][1] in NOUNS:
            out[-1] = (out[-1][0] + word, "nr")  # 麻/nr 糬/x: a character the dictionary lacks ends a name
        elif out and (out[-1][1] in ("j", "h") or out[-1][0] in _ZH_NAME_PREFIX) \
                and len(out[-1][0]) == 1 and flag == "nr" and len(word) == 1:
            out[-1] = (out[-1][0] + word, "nr")  # 阿/j 凯/nr, 小/a 周/nr: one name
        elif not out and word in ("那", "那么") and i + 1 < len(tagged) and (
                tagged[i + 1][1] in ("r", "d", "p") or _every(tagged[i + 1][0])):
            out.append((word, "c"))  # 那/r 我今天就…: "then" opening a clause, no "that"
        elif not out and flag == "p" and len(word) == 1 and i + 1 < len(tagged) \
                and tagged[i + 1][1] == "ul":
            out.append((word, "c"))  # 对/p 了/ul opening a clause: "by the way" (a
            # preposition takes no aspect particle), then 了 as its part
        elif out and out[-1][1] == "c" and len(out) == 1 and flag == "ul":
            out[-1] = (out[-1][0] + word, "c")
        elif len(word) == 1 and flag in NOUNS and (
                (i + 1 < len(tagged) and tagged[i + 1][0] in _PARTICLES + _ZH_RESULT)
                or (out and (out[-1][1] in ("d", "ad") or out[-1][0] in INTENT))
                or (out and out[-1] == ("在", "p") and i + 1 < len(tagged)
                    and tagged[i + 1][1] in NOUNS)):
            # 都/d 问/n 老板, 顺便/ad 问/n, 想问/n 一下: an adverb or 想 before a verb; 在/p
            # 学/n 日语: 在 of an act going on (a place is not followed by a noun)
            out.append((word, "v"))
        elif flag == "v" and len(word) == 2 and out and out[-1][1] in ("m", "q", "mq") \
                and i + 1 < len(tagged) and tagged[i + 1][1] in NOUNS \
                and alone(word[0]) == "n" and is_verb(alone(word[1])):
            # 一只/m 猫叫/v 团子/n: a count counts a thing, so the verb after it is a noun
            # and a verb (猫 叫 "a cat called"), as the dictionary's rare word hides
            out += [(word[0], "n"), (word[1], "v")]
        elif len(word) > 2 and word[1] in _PARTICLES and flag not in ("v", "i", "l") \
                and is_verb(alone(word[0])):
            # 开了个/n: the dictionary's word holds an aspect particle — a verb done, then
            # what follows it (个 a classifier), as the form says
            out += [(word[0], "v"), (word[1], "ul"), *chinese_tagged(word[2:])]
        elif opening and len(word) > 2 and flag == "n" and _verb_object(word):
            out += [(word[0], "v"), (word[1:], "n")]
        elif flag == "nr" and out and is_verb(out[-1][1]) and i + 1 < len(tagged) \
                and tagged[i + 1][0] in _PARTICLES and alone(word[0]) == "d":
            out.append((word, "a"))  # 坐/v 太久/nr 了: an adverb and what it grades, no name
        elif (flag in NOUNS or flag == "d") and len(word) == 1 and _after_verb(out) \
                and i + 1 < len(tagged) and (tagged[i + 1][1] in NOUNS or tagged[i + 1][1] == "a") \
                and alone("一" + word) == "m":
            out.append((word, "q"))  # 有/v 条/n 蓝裙子, 养了只/d 猫: a classifier, its 一 left out
        elif flag == "q" and len(word) == 1 and not (out and out[-1][1] in ("m", "r", "mq")) \
                and i + 1 < len(tagged) and len(tagged[i + 1][0]) == 2 \
                and alone(word + tagged[i + 1][0][0]) == "ns" and alone(tagged[i + 1][0][1]):
            # 在/p 台/q 南开/ns: a classifier counting nothing starts a place name of the
            # dictionary's (台南), and the next word's last character is a word of its own
            nxt = tagged[i + 1][0]
            out += [(word + nxt[0], "ns"), (nxt[1], alone(nxt[1]))]
            skip = i + 1
        elif flag == "n" and len(word) == 2 and i == len(tagged) - 1 and alone(word[0]) == "d" \
                and alone(word[1]) in ("zg", "v", "a"):
            out += [(word[0], "d"), (word[1], alone(word[1]))]  # 都行/n: 都/d 行, an answer
        elif flag == "f" and len(word) == 1 and _split_verb(word, tagged[i + 1:]):
            out.append((word, "v"))  # 上/f 网球/n 课/n: 上课 split around what the class is
        else:
            out.append((word, flag))
        opening = opening and flag.startswith(OPENING)
    return out


def _after_verb(out: list[tuple[str, str]]) -> bool:
    """The words so far end on a verb, or a verb and its aspect particle (养了)."""
    if out and out[-1][0] in _PARTICLES:
        out = out[:-1]
    return bool(out) and is_verb(out[-1][1])


def alone(text: str) -> str:
    """The dictionary's tag of `text` when it reads it as one word, else ""."""
    pairs = chinese_tagged(text)
    return pairs[0][1] if len(pairs) == 1 else ""


def _split_verb(head: str, after: list[tuple[str, str]]) -> bool:
    """A one-character locative (上/f) before a noun phrase whose last character it makes a
    verb the dictionary knows with (上 + 钢琴课 → 上课/v, 上 + 平静水域课): a verb split around
    its object, as Chinese writes one (上网球课 "take a tennis class"; a Latin word inside
    the phrase too: 上 Kpop 舞蹈课), not "on"."""
    run = []
    for word, flag in after:
        if flag not in NOUNS and flag not in ("a", "eng"):
            break
        run.append((word, flag))
    while run and run[-1][1] not in NOUNS:
        run.pop()
    if not run:
        return False
    joined = chinese_tagged(head + run[-1][0][-1])
    return len(joined) == 1 and is_verb(joined[0][1])


def _verb_object(word: str) -> bool:
    """`word` is a verb of one character and a noun the dictionary knows (打 + 网球), and
    no other reading: its first two characters are no word of their own (预产 is one:
    预产期 is a noun, not 预 + 产期)."""
    head, rest = chinese_tagged(word[0]), chinese_tagged(word[1:])
    return (len(head) == 1 and is_verb(head[0][1]) and len(rest) == 1
            and rest[0][1] in ("n", "nz") and not alone(word[:2]))


def clauses(text: str) -> list[str]:
    """The clauses of a (simplified) text, split at `_CLAUSE`, the empty ones left out."""
    return [c for c in _CLAUSE.split(text) if c.strip()]


def parse_clause(clause: str) -> list[tuple[str, str]]:
    """A clause's (word, tag) pairs as jieba gives them, whitespace out, then `_retagged`."""
    return _retagged([(w, f) for w, f in chinese_tagged(clause.strip()) if w.strip()])


def goes_to_do(tagged: list[tuple[str, str]]) -> bool:
    """The clause ends on 去 / 来 and one word of a verb's with no object after it (也去练,
    去上/f: jieba tags a lone 上 as a place word): going to do what it leaves unsaid."""
    words = [(w, f) for w, f in tagged if f not in ("x", "ul", "y")]
    if len(words) < 2 or words[-2][0] not in ("去", "来"):
        return False
    last, flag = words[-1]
    return len(last) == 1 and (is_verb(flag) or flag == "f")


def kin_subject(tagged: list[tuple[str, str]]) -> str:
    """The subject of a clause when it is one of the speaker's people — a kin word first
    (after a time or a connective) and a verb after it (儿子从上海回来: 儿子); "" otherwise."""
    rest = [(w, f) for w, f in tagged if not f.startswith(("t", "c"))]
    if rest and rest[0][0] in KIN_WORDS and any(is_verb(f) for _, f in rest[1:]):
        return rest[0][0]
    return ""


def a_not_a(words: list[str]) -> bool:
    """The A-not-A question: 会/v 不会/v as jieba cuts it, or A 不 A in three words (对/p
    不/d 对/p, 好/a 不/d 好/a)."""
    return any(b in ("不" + a, "没" + a) for a, b in zip(words, words[1:], strict=False)) or any(
        words[i + 1] in ("不", "没") and words[i + 2] == words[i] for i in range(len(words) - 2))


def a_state(tagged: list[tuple[str, str]]) -> bool:
    """The clause ends on an adverb of degree and one verb (花莲/nr 晚上比较凉/v, 她最近很忙):
    what someone or something is like, no news of them."""
    words = [w for w, f in tagged if f not in ("x", "y", "ul")]
    return len(words) > 1 and words[-2] in DEGREE and is_verb(dict(tagged)[words[-1]])


def placed(tagged: list[tuple[str, str]]) -> frozenset[str]:
    """The words of a place 在 names (养在/v 书房, 在/p 老家的/uj 院子里): where, never
    the thing 它 or a left-out object stands for."""
    out, inside = set(), False
    for word, flag in tagged:
        inside = word == "在" or (inside and (flag in NOUNS or flag in ("s", "f", "m", "q", "uj")))
        if inside and word != "在":
            out.add(word)
    return frozenset(out)


# verbs of naming: 叫豆豆 "(it) is called 豆豆" (a closed class of grammar words)
_ZH_CALLED = frozenset(("叫", "名叫", "叫做"))


def called_name(tagged: list[tuple[str, str]]) -> str:
    """A clause opening on a verb of naming and a name, nothing after it (叫豆豆, 名叫可乐):
    what the thing named before is called — the name; "" otherwise (叫朋友帮忙: a verb
    after the person, "ask … to")."""
    if len(tagged) < 2 or tagged[0][0] not in _ZH_CALLED or not is_verb(tagged[0][1]):
        return ""
    rest = [(w, f) for w, f in tagged[1:] if f not in ("x", "ul", "y")]
    if not rest or any(is_verb(f) for _, f in rest) or not all(
            f in NOUNS or f in ("nrfg", "eng", "a") for _, f in rest):
        return ""
    return "".join(w for w, _ in rest)


def intent_after(tagged: list[tuple[str, str]]) -> bool:
    """What the speaker means to do, after a verb jieba cut from a word it does not hold
    (跨年想去哈尔滨: 跨/v 年/m, then 想去; 过年打算回老家): an intent word and its verb
    with no subject between — no noun or pronoun before the intent word."""
    for i, (word, flag) in enumerate(tagged):
        if flag in NOUNS or flag == "r":
            return False
        if word in INTENT and i + 1 < len(tagged) and is_verb(tagged[i + 1][1]):
            return True
    return False


_ZH_SELF_SUBJECT = ("我", "我们", "俺", "咱")


def one_who(tagged: list[tuple[str, str]]) -> str:
    """我是开出租的, 我是教英语的: the speaker is "one who does" what stands between 是 and
    the closing 的 — their job or role, a verb and what it takes; "" for any other clause
    (我是老师: a noun, read as a noun is; 我是说…: no closing 的)."""
    words = [(w, f) for w, f in tagged if f not in ("x", "d")]
    if len(words) < 4 or words[0][0] not in _ZH_SELF_SUBJECT or words[1][0] != "是" \
            or words[-1][0] != "的":
        return ""
    middle = words[2:-1]
    if not is_verb(middle[0][1]) or middle[0][0] in AUX or not all(
            is_verb(f) or f in NOUNS for _, f in middle):
        return ""
    return "".join(w for w, _ in middle)


def praised_act(tagged: list[tuple[str, str]]) -> str:
    """An act as a clause's subject and what it is like as its predicate, no negation
    (盖/v 布 真的/d 有用/v, 那个 语音/n 打字/v 挺/d 好用/a, 用 语音 打字 挺方便的): the speaker
    tried it and found it works — a suggestion taken up. The subject is a run of nouns and
    verbs, one verb and what it takes (an act: 天气很好 is a remark, 听说很有名 hearsay;
    开车开太久了 says how long, two verbs), after a
    determiner (那个) or 用 ("using") at most; the predicate one adjective or verb after
    an adverb (挺好用, 真的有用) — never one negated (不太好用, 没用). The act as written; "" for
    any other clause."""
    words = [(w, f) for w, f in tagged if f not in ("x", "y", "ul", "uj")]
    at = 0
    while at < len(words) and (words[at][1].startswith(("c", "e", "o", "t")) or (
            words[at][1] == "r" and words[at][0][:1] in "这那" and len(words[at][0]) > 1)
            or words[at] == ("用", "p")):
        at += 1
    start = at
    while at < len(words) and (words[at][1] in NOUNS or is_verb(words[at][1])
                               or words[at][1] in ("nr", "b")):
        at += 1
    subject, rest = words[start:at], words[at:]
    verbs = [w for w, f in subject if is_verb(f)]
    things = [w for w, f in subject if not is_verb(f) and w not in LIGHT]
    if len(verbs) != 1 or not things or verbs[0] in AUX or verbs[0] in INTENT or len("".join(w for w, _ in subject)) < 2 \
            or len(subject) > 3 or not rest:
        return ""
    *adverbs, (last, flag) = rest
    if not all(f in ("d", "zg") for _, f in adverbs) or any(
            w.startswith(("不", "没", "别")) for w, _ in rest):
        return ""
    graded = adverbs or last[:1] in DEGREE or last[:2] in DEGREE  # 挺好用/a: one word of the dictionary's
    if not graded or not (flag == "a" or is_verb(flag) or flag == "vn"):
        return ""  # 名叫/v 可乐/a: no adverb grades it, no verdict
    return "".join(w for w, _ in subject)


def negated_act(tagged: list[tuple[str, str]]) -> str:
    """我 (after a connective or an adverb at most) and a negated verb with its object to the
    clause's end (我不吃/v 辣, 我没养/v 过 狗, 我从来不/d 坐飞机/n, 我不是/c 老师): what the
    speaker does not do, has not done or is not — the negation, the verb and the object as
    written from 不 / 没 on, never the object alone, which would say the opposite; "" for
    any other clause, and where the object is no noun (我不觉得累) or a pronoun (我不认识他)."""
    words = [(w, f) for w, f in tagged if f not in ("x", "y", "uj")]
    at = 0
    while at < len(words) and words[at][1].startswith(OPENING) and words[at][0] not in _ZH_SELF_SUBJECT:
        at += 1
    if at >= len(words) or words[at][0] not in _ZH_SELF_SUBJECT:
        return ""
    rest = words[at + 1:]
    neg = next((i for i, (w, _) in enumerate(rest) if "不" in w or "没" in w), None)
    if neg is None or not all(f in ("d", "zg") for _, f in rest[:neg]):
        return ""
    word, flag = rest[neg]
    cut = max(word.rfind("不"), word.rfind("没"))
    k = neg + 1
    if flag in ("d", "zg") and cut == len(word) - 1:  # 不/d, 从来不/d: the verb follows
        while k < len(rest) and rest[k][1] in ("d", "zg"):
            k += 1
        if k >= len(rest) or not (is_verb(rest[k][1]) or rest[k][1] == "n"):
            return ""
        k += 1
    elif not (is_verb(flag) or flag == "c") or cut != 0:  # 不吃/v, 没养/v, 不是/c
        return ""
    while k < len(rest) and rest[k][1] in ("ug", "ul", "uz"):  # 没养过狗
        k += 1
    obj = rest[k:]
    if rest[k - 1][1] == "n" and not obj:  # 从来不坐飞机/n: the verb and its object in one word
        obj = [rest[k - 1]]
    if not obj or not all(f in NOUNS or f in ("a", "b", "m", "q") for _, f in obj) \
            or not any(f in NOUNS and w not in LIGHT for w, f in obj):
        return ""
    text = "".join(w for w, _ in rest[neg:])
    return text[cut:] if len(text) - cut <= 8 else ""


def done_for(tagged: list[tuple[str, str]]) -> str:
    """An act the clause says is done for a while or so often — its last verb followed
    only by a count (快走一小时, 游泳两次, 跑二十分钟): the activity, the verb with a
    one-character adjective before it that makes it one (快/a 走/v: jieba has no word);
    "" for a verb of one character alone (走一万步), for 有 of having or being left (还有
    二十多天: no act) or any other clause."""
    at = max((i for i, (_, f) in enumerate(tagged) if is_verb(f)), default=-1)
    after = tagged[at + 1:]
    if at < 0 or tagged[at][0].endswith("有") or not any(f in ("m", "mq") for _, f in after) or not all(
            f in ("m", "q", "mq") or w in LIGHT for w, f in after):
        return ""
    word = tagged[at][0]
    if len(word) == 1 and at and len(tagged[at - 1][0]) == 1 and tagged[at - 1][1] == "a":
        return tagged[at - 1][0] + word
    return word if len(word) > 1 and word not in AUX and word not in INTENT else ""


def headless_count(tagged: list[tuple[str, str]]) -> bool:
    """A number and its classifier with no noun after it (我家两只最近…, 养了三个): it counts
    a thing named before, as Chinese leaves out a noun it has just said — not 一点 / 一下
    (a little), not a number before its noun (两只猫)."""
    for i, (word, flag) in enumerate(tagged):
        if flag != "m" or len(word) < 2 or word in LIGHT or not (
                word[0].isdigit() or alone(word[0]) == "m"):  # 两只, 3个: a number first
            continue
        after = tagged[i + 1][1] if i + 1 < len(tagged) else ""
        if after not in NOUNS and after not in ("a", "q", "m", "uj"):
            return True
    return False


def latin_thing(word: str, flag: str) -> bool:
    """A Latin word in a Chinese clause that names a thing by its form: an acronym or a
    word with a digit (N2, CPA, MBA, iPhone15) — not "ok", "lol", and never digits alone,
    which jieba also tags 'eng' (12月30号 is a date, 30 no thing)."""
    return flag == "eng" and any(c.isalpha() for c in word) and (
        any(c.isdigit() for c in word) or sum(c.isupper() for c in word) > 1)


def moved_to(tagged: list[tuple[str, str]]) -> bool:
    """A clause with no subject that opens on a verb of one character and its result
    complement (改/v 到, 挪到, 推到, 改成) with a time after it (改到下下周一上午十点): the
    thing named before, which Chinese leaves out, moved to then."""
    words = [(w, f) for w, f in tagged if f not in ("x", "y")]
    at = 0
    while at < len(words) and words[at][1].startswith(("c", "e", "o", "d")):
        at += 1
    if at + 2 > len(words) or len(words[at][0]) != 1 or not is_verb(words[at][1]) \
            or words[at + 1][0] not in ("到", "成"):
        return False
    return any(f == "t" for _, f in words[at + 2:])
