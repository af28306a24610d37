"""A student's Obsidian vault a year in, as public ones are: course notes, journal, index notes.

Public Zettelkasten and course vaults are not what a generator of atomic notes writes:
each course has an index note (a map of content listing its notes with short links,
`[[Autômato finito|AFD]]`), lecture notes are long — `##` sections, maths in `$…$` and
`$$…$$`, code blocks, embeds of pictures and of other notes' sections — and link their
neighbours and notes the person means to write (`[[Linux]]`, `[[Atomic Habits]]`);
journal pages link the previous and next day whether or not those were written;
frontmatter keeps `created-at`, `tags` and `aliases`; a templates folder holds the
person's templates; titles are Portuguese and English; every file keeps the time it had
years ago. `write_course_vault(root, notes=1000)` writes such a folder (what
`reme-workbench import` takes) and returns counts the benchmark prints.

Every course name, term and sentence is generated here from the word lists below.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from datetime import date as Date
from datetime import timedelta
from pathlib import Path

__all__ = ["CourseVault", "write_course_vault", "COURSE_MTIME"]

_FIRST_DAY = Date(2024, 1, 1)
COURSE_MTIME = 1_672_531_200  # 2023-01-01: the file times of a vault brought from elsewhere

# course index title -> (language, the terms its notes are about)
_COURSES: dict[str, tuple[str, tuple[str, ...]]] = {
    "Teoria da Computação": ("pt", (
        "Autômato finito", "Linguagem regular", "Expressão regular", "Gramática livre de contexto",
        "Máquina de Turing", "Autômato com pilha", "Lema do bombeamento", "Decidibilidade",
        "Problema da parada", "Redução", "Classe P", "Classe NP", "NP-completude",
        "Minimização de autômatos", "Fecho de Kleene", "Forma normal de Chomsky")),
    "Estruturas de Dados": ("pt", (
        "Lista ligada", "Pilha", "Fila", "Árvore binária", "Árvore AVL", "Tabela hash",
        "Heap binário", "Grafo", "Busca em largura", "Busca em profundidade", "Ordenação por fusão",
        "Quicksort", "Análise assintótica", "Árvore B", "União-busca")),
    "Cálculo I": ("pt", (
        "Limite", "Continuidade", "Derivada", "Regra da cadeia", "Derivação implícita",
        "Teorema do valor médio", "Integral definida", "Teorema fundamental do cálculo",
        "Integração por partes", "Substituição trigonométrica", "Séries de Taylor",
        "Máximos e mínimos", "Regra de L'Hôpital")),
    "Linux administration": ("en", (
        "File permissions", "Systemd units", "Cron jobs", "SSH keys", "Package managers",
        "Logical volumes", "Firewall rules", "Process signals", "Journald logs",
        "User accounts", "Network namespaces", "Bash scripting", "Disk quotas", "Kernel modules")),
    "Machine Learning": ("en", (
        "Linear regression", "Logistic regression", "Gradient descent", "Overfitting",
        "Cross-validation", "Decision trees", "Random forests", "Support vector machines",
        "Principal component analysis", "K-means clustering", "Backpropagation",
        "Regularization", "Confusion matrix", "Learning rate schedules")),
    "Personal finance": ("en", (
        "Emergency fund", "Index fund", "Compound interest", "Asset allocation", "Tax brackets",
        "Retirement accounts", "Budget categories", "Credit score", "Mortgage amortization",
        "Inflation", "Dollar-cost averaging", "Bond ladders")),
    "História do Brasil": ("pt", (
        "Período colonial", "Ciclo do ouro", "Independência", "Primeiro Reinado",
        "Regência", "Segundo Reinado", "Abolição", "Proclamação da República",
        "Era Vargas", "Ditadura militar", "Redemocratização", "Constituição de 1988")),
    "Reading notes": ("en", (
        "Deep Work", "Thinking, Fast and Slow", "The Pragmatic Programmer", "Sapiens",
        "How to Take Smart Notes", "The Design of Everyday Things", "Range", "Antifragile",
        "The Mythical Man-Month", "Clean Architecture", "Designing Data-Intensive Applications")),
}

_PT = {
    "open": ("Nesta aula vimos", "O ponto central é", "Segundo o professor,", "Em resumo,",
             "Vale lembrar que", "Uma consequência importante é que", "Na prática,"),
    "verb": ("define", "caracteriza", "generaliza", "depende de", "se relaciona com",
             "é equivalente a", "contrasta com", "aparece em"),
    "tail": ("como mostra o exemplo da lista 3.", "o que cai na prova.", "com a demonstração no livro.",
             "e isso explica o exercício 4.", "mas só no caso finito.", "sem perda de generalidade.",
             "conforme o capítulo 2 do livro-texto."),
    "sections": ("Definição", "Intuição", "Exemplos", "Propriedades", "Demonstração",
                 "Exercícios", "Dúvidas", "Referências"),
}
_EN = {
    "open": ("In this lecture we saw that", "The key point is that", "According to the book,",
             "In short,", "Remember that", "An important consequence is that", "In practice,"),
    "verb": ("defines", "characterises", "generalises", "depends on", "relates to",
             "is equivalent to", "contrasts with", "shows up in"),
    "tail": ("as the worked example shows.", "which will be on the exam.", "with the proof in chapter 3.",
             "and that explains exercise 4.", "but only in the finite case.",
             "without loss of generality.", "as the second chapter argues."),
    "sections": ("Definition", "Intuition", "Examples", "Properties", "Proof", "Exercises",
                 "Questions", "References"),
}
_MATHS = (r"$L \subseteq \Sigma^*$", r"$f'(x) = \lim_{h \to 0} \frac{f(x+h) - f(x)}{h}$",
          r"$O(n \log n)$", r"$\delta: Q \times \Sigma \to Q$", r"$A = P(1 + r/n)^{nt}$",
          r"$\hat{y} = \sigma(w^\top x + b)$", r"$\int_a^b f(x)\,dx = F(b) - F(a)$")
_CODE = ("```python\ndef busca(v, x):\n    lo, hi = 0, len(v) - 1\n    while lo <= hi:\n"
         "        m = (lo + hi) // 2\n        if v[m] == x:\n            return m\n"
         "        lo, hi = (m + 1, hi) if v[m] < x else (lo, m - 1)\n    return -1\n```",
         "```bash\nsudo systemctl enable --now backup.timer\njournalctl -u backup.service -n 50\n```",
         "```python\nfor epoch in range(10):\n    loss = model.step(batch)\n    print(epoch, loss)\n```")
_ASPECTS = {"pt": ("exemplos", "exercícios", "revisão", "casos especiais", "aplicações",
                    "história", "erros comuns", "resumo para a prova", "dúvidas da monitoria"),
            "en": ("examples", "exercises", "review", "edge cases", "applications", "history",
                   "common mistakes", "exam summary", "questions from office hours")}
_UNWRITTEN = ("Linux", "Atomic Habits", "Zettelkasten", "Spaced repetition", "Probabilidade",
              "Álgebra linear", "Git", "Pomodoro", "Lógica proposicional", "Statistics")
_MOODS = ("Dia produtivo.", "Cansado, pouco estudo.", "Good focus in the morning.",
          "Revisei as anotações.", "Read for an hour before bed.", "Prova amanhã.")


@dataclass(frozen=True)
class CourseVault:
    notes: int  # Markdown notes written (templates included)
    index_notes: tuple[str, ...]  # the courses' maps of content
    lecture_notes: int
    journal_notes: int
    long_notes: int  # over ~2,000 tokens: split looks at them
    links: int  # wikilinks written, embeds included
    unwritten_links: int  # links to notes that do not exist


def _sentence(rng: random.Random, words: dict, term: str, others: list[str], links: list[str]) -> str:
    other = rng.choice(others)
    linked = f"[[{other}]]" if rng.random() < 0.25 else other.lower()
    if rng.random() < 0.25:
        links.append(other)
    return f"{rng.choice(words['open'])} {term.lower()} {rng.choice(words['verb'])} {linked} {rng.choice(words['tail'])}"


def _lecture(rng: random.Random, course: str, lang: str, title: str, terms: tuple[str, ...],
             long: bool, counts: dict) -> str:
    words = _PT if lang == "pt" else _EN
    term = title.split(" - ")[0]
    others = [t for t in terms if t != term]
    links: list[str] = []
    created = f"2023-{rng.randint(2, 11):02d}-{rng.randint(1, 28):02d}"
    alias = f"\naliases:\n  - {''.join(w[0] for w in term.split()).upper()}" if rng.random() < 0.3 else ""
    parts = [f"---\ncreated-at: {created}\ntags: [{course.lower().replace(' ', '-')}]{alias}\n---\n",
             f"# {title}\n\n", f"Curso: [[{course}]]\n" if lang == "pt" else f"Course: [[{course}]]\n"]
    sections = rng.sample(words["sections"], 6 if long else rng.randint(2, 4))
    for title in sections:
        parts.append(f"\n## {title}\n")
        for _ in range(rng.randint(14, 22) if long else rng.randint(2, 5)):
            parts.append(_sentence(rng, words, term, others, links) + " ")
        parts.append("\n")
        if rng.random() < 0.3:
            parts.append(f"\n{rng.choice(_MATHS)}\n\n")
        if rng.random() < 0.15:
            parts.append(f"\n{rng.choice(_CODE)}\n\n")
        if rng.random() < 0.2:
            parts.append(f"\n![[{term.lower().replace(' ', '-')}-diagrama.png]]\n\n")
            counts["links"] += 1
    if rng.random() < 0.3:
        parts.append(f"\n![[{rng.choice(others)}#{rng.choice(words['sections'])}]]\n")
        counts["links"] += 1
    if rng.random() < 0.4:
        parts.append(f"\nVer também [[{rng.choice(_UNWRITTEN)}]].\n")
        counts["links"] += 1
        counts["unwritten"] += 1
    counts["links"] += len(links) + 1
    return "".join(parts)


def _index(course: str, lang: str, terms: list[str], counts: dict) -> str:
    head = "Notas do curso" if lang == "pt" else "Notes of the course"
    lines = [f"---\ntags: [moc]\n---\n# {course}\n\n{head}:\n"]
    for term in terms:
        short = "".join(w[0] for w in term.split()).upper()
        lines.append(f"- [[{term}|{short}]] — {term.lower()}" if len(term) > 22 else f"- [[{term}]]")
    counts["links"] += len(terms)
    return "\n".join(lines) + "\n"


def write_course_vault(root: Path, notes: int = 1000, seed: int = 7) -> CourseVault:
    """Write about `notes` Markdown notes under `root` (an Obsidian vault): 8 courses of
    lecture notes with an index note each (a course's terms come back with an aspect
    — `Derivada - exercícios` — to reach the size), a fifth of the vault journal pages, a
    templates folder and a few pictures' names. Deterministic for a seed."""
    rng = random.Random(seed)
    root = Path(root)
    counts = {"links": 0, "unwritten": 0}
    files: dict[str, str] = {
        "Templates/Aula.md": "---\ncreated-at: {{date}}\ntags: []\n---\n# {{title}}\n\n## Definição\n\n## Exemplos\n",
        "Templates/Daily.md": "<< [[{{yesterday}}]] | [[{{tomorrow}}]] >>\n\n## Hoje\n\n- \n",
        ".obsidian/app.json": '{"alwaysUpdateLinks": true, "newLinkFormat": "shortest"}\n',
        ".obsidian/templates.json": '{"folder": "Templates"}\n',
    }
    journal = max(10, notes // 5)
    lectures = notes - journal - len(_COURSES) - 2
    per_course = [lectures // len(_COURSES) + (i < lectures % len(_COURSES))
                  for i in range(len(_COURSES))]
    long_notes = 0
    index_notes = []
    for (course, (lang, terms)), count in zip(_COURSES.items(), per_course, strict=True):
        aspects = _ASPECTS[lang]
        # past the course's terms, a term comes back with an aspect: "Derivada - exercícios"
        titles = [terms[i % len(terms)] + (f" - {aspects[(i // len(terms) - 1) % len(aspects)]}"
                                           if i >= len(terms) else "") for i in range(count)]
        folder = course
        for title in titles:
            long = rng.random() < 0.08
            long_notes += long
            files[f"{folder}/{title}.md"] = _lecture(rng, course, lang, title, terms, long, counts)
        files[f"{folder}/{course}.md"] = _index(course, lang, titles, counts)
        index_notes.append(f"{folder}/{course}.md")
    day = 0
    for _ in range(journal):
        day += rng.choice((1, 1, 1, 2, 3))  # days without a page: their links stay unwritten
        date, prev_date, next_date = (str(_FIRST_DAY + timedelta(days=day + d)) for d in (0, -1, 1))
        course = rng.choice(list(_COURSES))
        term = rng.choice(_COURSES[course][1])
        files[f"Journal/{date}.md"] = (
            f"<< [[{prev_date}]] | [[{next_date}]] >>\n\n{rng.choice(_MOODS)} "
            f"Estudei [[{term}]] para [[{course}]].\n")
        counts["links"] += 4
    written = {Path(p).stem for p in files}
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    for path in root.rglob("*"):
        os.utime(path, (COURSE_MTIME, COURSE_MTIME))
    md = [p for p in files if p.endswith(".md")]
    journal_names = {Path(p).stem for p in md if p.startswith("Journal/")}
    # a journal page's prev/next link to a day without a page is unwritten too
    missing_days = sum(1 for p in md if p.startswith("Journal/")
                       for d in files[p].split("]]")[:2]
                       if d.split("[[")[-1] not in journal_names)
    return CourseVault(notes=len(md), index_notes=tuple(index_notes),
                       lecture_notes=len(md) - journal - len(index_notes) - 2,
                       journal_notes=len(journal_names & written), long_notes=long_notes,
                       links=counts["links"], unwritten_links=counts["unwritten"] + missing_days)
