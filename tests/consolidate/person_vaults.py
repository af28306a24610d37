"""Vaults built the way people keep them, for the hub tests (issue #31).

* `course_vault(folder)` — an Obsidian vault of university course notes in Portuguese and
  English, flat in one folder, `created-at` frontmatter: three courses each with the
  author's own index note (a map of content listing its lecture notes; the lectures link
  concept notes the index does not list), one course with no index, notes with maths
  (`$L \\subseteq \\Sigma^*$`, `$$…$$`), code spans and Haskell blocks, journal links and
  links to notes not written yet (`[[Linux]]`).
* `planted_vault(folder)` — four clear communities of 5–6 notes (each note links the next
  three of its own community, one link between neighbouring communities), English, as a
  person would plant them to see what the hubs do.

Both are folders a person would give `reme-workbench import`; `imported(...)` does it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from click.testing import CliRunner

from reme_workbench.cli import cli
from tests.conftest import write_files

OLD = 1_709_251_200  # 2024-03-01: the file times a vault brought from elsewhere keeps


def _note(created: str, body: str, tags: str = "") -> str:
    tag_line = f"tags: [{tags}]\n" if tags else ""
    return f"---\ncreated-at: {created}\n{tag_line}---\n{body.strip()}\n"


def _index(title: str, intro: str, lectures: list[str], created: str, after: str = "") -> str:
    items = "".join(f"- [[{name}]]\n" for name in lectures)
    return _note(created, f"# {title}\n\n{intro}\n\n{items}\n{after}", "disciplina, mapa")


# -- Teoria da Computação: an index of lectures; the lectures link concept notes ----------------

TC_LECTURES = {
    "Autômatos Finitos Determinísticos": (
        "Um autômato finito determinístico (AFD) é uma 5-upla $M = (Q, \\Sigma, \\delta, q_0, F)$ "
        "onde $\\delta: Q \\times \\Sigma \\to Q$. Reconhece exatamente as "
        "[[Linguagens Regulares]].\n\n## Exemplo\n\nO AFD que aceita cadeias com número par de "
        "zeros tem dois estados. Ver também [[Alfabetos e Cadeias]] e "
        "[[Autômatos Finitos Não Determinísticos]]."),
    "Autômatos Finitos Não Determinísticos": (
        "Um AFN permite várias transições para o mesmo símbolo: "
        "$\\delta: Q \\times (\\Sigma \\cup \\{\\varepsilon\\}) \\to 2^Q$.\n\n## Equivalência\n\n"
        "Todo AFN tem um AFD equivalente pela construção de subconjuntos; o número de estados "
        "pode crescer até $2^n$. Base para [[Expressões Regulares]] e para o "
        "[[Fecho de Kleene]]."),
    "Expressões Regulares": (
        "Uma expressão regular descreve uma linguagem $L \\subseteq \\Sigma^*$ com união, "
        "concatenação e [[Fecho de Kleene]].\n\n## Na prática\n\nEm Python, "
        "`re.fullmatch(r\"(0|1)*00\", s)` testa se `s` termina em dois zeros. Toda expressão "
        "regular vira um [[Autômatos Finitos Não Determinísticos|AFN]]; ver "
        "[[Linguagens Regulares]]."),
    "Lema do Bombeamento": (
        "Se $L$ é regular, existe $p$ tal que toda cadeia $w \\in L$ com $|w| \\geq p$ se "
        "escreve $w = xyz$ com $|xy| \\leq p$, $|y| > 0$ e $xy^iz \\in L$ para todo $i$.\n\n"
        "## Uso\n\nServe para provar que $\\{0^n1^n\\}$ não é uma das "
        "[[Linguagens Regulares]]. Ver [[Alfabetos e Cadeias]]."),
    "Gramáticas Livres de Contexto": (
        "Uma gramática livre de contexto tem regras $A \\to \\alpha$ com $A$ não terminal.\n\n"
        "$$S \\to 0S1 \\mid \\varepsilon$$\n\n## Relação\n\nGera exatamente as linguagens "
        "reconhecidas pelos [[Autômatos de Pilha]]. Ver [[Alfabetos e Cadeias]]."),
    "Autômatos de Pilha": (
        "Um autômato de pilha é um AFN com uma pilha: reconhece as linguagens livres de "
        "contexto.\n\n## Definição\n\n$\\delta: Q \\times \\Sigma_\\varepsilon \\times "
        "\\Gamma_\\varepsilon \\to 2^{Q \\times \\Gamma_\\varepsilon}$. Ver "
        "[[Gramáticas Livres de Contexto]] e [[Decidibilidade]]."),
    "Máquinas de Turing": (
        "Uma máquina de Turing lê e escreve numa fita infinita; é o modelo da "
        "[[Decidibilidade]].\n\n## Tese de Church-Turing\n\nTodo procedimento efetivo é "
        "computável por uma máquina de Turing. O [[Problema da Parada]] não é decidível. "
        "Estudei isso em [[2024-05-20]]."),
}
TC_CONCEPTS = {
    "Linguagens Regulares": (
        "As linguagens regulares são as reconhecidas por "
        "[[Autômatos Finitos Determinísticos]].\n\nSão fechadas sob união, concatenação e "
        "[[Fecho de Kleene]]. O [[Lema do Bombeamento]] mostra quando uma linguagem não é "
        "regular."),
    "Alfabetos e Cadeias": (
        "Um alfabeto $\\Sigma$ é um conjunto finito de símbolos; $\\Sigma^*$ é o conjunto de "
        "todas as cadeias sobre ele, incluindo a cadeia vazia $\\varepsilon$.\n\nUsado em "
        "[[Expressões Regulares]] e [[Linguagens Regulares]]."),
    "Fecho de Kleene": (
        "O fecho de Kleene $L^* = \\bigcup_{i \\geq 0} L^i$.\n\nAparece nas "
        "[[Expressões Regulares]] e nas [[Linguagens Regulares]]."),
    "Decidibilidade": (
        "Uma linguagem é decidível quando alguma [[Máquinas de Turing|máquina de Turing]] "
        "sempre para e responde.\n\nO [[Problema da Parada]] é o exemplo clássico de "
        "indecidível."),
    "Problema da Parada": (
        "O problema da parada pergunta se uma [[Máquinas de Turing|máquina de Turing]] para "
        "numa entrada dada; Turing provou por diagonalização que não é decidível.\n\nVer "
        "[[Decidibilidade]]."),
}

# -- Programação Funcional: Haskell code in blocks ------------------------------------------------

PF_LECTURES = {
    "Funções Puras": (
        "Uma função pura depende só dos argumentos e não tem efeitos colaterais.\n\n"
        "```haskell\ndobro :: Int -> Int\ndobro x = x * 2\n```\n\nVer "
        "[[Variáveis e Imutabilidade]] e [[Avaliação Preguiçosa]]."),
    "Funções de Ordem Superior": (
        "Funções de ordem superior recebem ou devolvem funções, como `map :: (a -> b) -> [a] "
        "-> [b]`.\n\n```haskell\nsomaQuadrados xs = foldr (+) 0 (map (^2) xs)\n```\n\nVer "
        "[[Currying]] e [[Listas em Haskell]]."),
    "Variáveis e Imutabilidade": (
        "Em Haskell uma variável nomeia um valor e nunca muda: `x = 5` é uma definição, não "
        "uma atribuição.\n\n## Consequência\n\nSem estado mutável, [[Funções Puras]] são a "
        "regra. Ver [[Casamento de Padrões]]."),
    "Recursão": (
        "Sem laços, repetimos por recursão.\n\n```haskell\nfatorial 0 = 1\nfatorial n = n * "
        "fatorial (n - 1)\n```\n\nVer [[Casamento de Padrões]] e [[Listas em Haskell]]."),
    "Listas em Haskell": (
        "Listas são construídas com `:` e `[]`; `[1..10]` é uma lista de dez inteiros.\n\n"
        "## Compreensões\n\n`[x * x | x <- [1..10], even x]`. Ver [[Avaliação Preguiçosa]] e "
        "[[Recursão]]."),
    "Tipos Algébricos de Dados": (
        "Um tipo algébrico combina somas e produtos: `data Forma = Circulo Double | Retangulo "
        "Double Double`.\n\nVer [[Casamento de Padrões]] e [[Functores]]."),
    "Mônadas": (
        "Uma mônada tem `return` e `>>=` e encadeia computações com contexto, como `Maybe` e "
        "`IO`.\n\n```haskell\nmetade x = if even x then Just (x `div` 2) else Nothing\n```\n\n"
        "Toda mônada é um dos [[Functores]]. Ver [[Funções de Ordem Superior]]."),
}
PF_CONCEPTS = {
    "Avaliação Preguiçosa": (
        "Haskell só avalia uma expressão quando o valor é preciso: `take 3 [1..]` termina.\n\n"
        "Ver [[Listas em Haskell]] e [[Funções Puras]]."),
    "Currying": (
        "Toda função de Haskell recebe um argumento: `soma :: Int -> Int -> Int` é "
        "`Int -> (Int -> Int)`.\n\nVer [[Funções de Ordem Superior]] e [[Cálculo Lambda]]."),
    "Casamento de Padrões": (
        "O casamento de padrões escolhe a equação pela forma do argumento.\n\nVer "
        "[[Recursão]], [[Tipos Algébricos de Dados]] e [[Variáveis e Imutabilidade]]."),
    "Functores": (
        "Um functor tem `fmap :: (a -> b) -> f a -> f b`.\n\nVer [[Mônadas]] e "
        "[[Tipos Algébricos de Dados]]."),
    "Cálculo Lambda": (
        "O cálculo lambda de Church é a base das linguagens funcionais: $(\\lambda x. x + 1)\\, 2 "
        "\\to 3$.\n\nVer [[Currying]] e [[Funções Puras]]."),
}

# -- Operating Systems, in English --------------------------------------------------------------

OS_LECTURES = {
    "Processes and Threads": (
        "A process owns an address space; its threads share it and each has its own stack.\n\n"
        "See [[Context Switch]] and [[Semaphores]]. Ran the examples on [[Linux]]."),
    "CPU Scheduling": (
        "The scheduler picks the next ready thread: FCFS, SJF, priorities and "
        "[[Round Robin]].\n\n## Metrics\n\nTurnaround, waiting time and response time. See "
        "[[Context Switch]]."),
    "Virtual Memory": (
        "Each process sees its own address space, mapped to frames by the page table.\n\n"
        "See [[Translation Lookaside Buffer]] and [[Page Replacement]]."),
    "Page Replacement": (
        "When memory is full a page is evicted: FIFO, LRU, the clock algorithm.\n\n"
        "Belady's anomaly: FIFO can fault more with more frames. See [[Virtual Memory]] and "
        "[[Translation Lookaside Buffer]]."),
    "Deadlocks": (
        "Four conditions: mutual exclusion, hold and wait, no preemption, circular wait.\n\n"
        "See [[Semaphores]] and [[Synchronization]]."),
    "File Systems": (
        "Inodes hold a file's metadata and block pointers; directories map names to inodes.\n\n"
        "Run `ls -i` to see the inode numbers on [[Linux]]. See [[Virtual Memory]]."),
    "Synchronization": (
        "A race condition needs a critical section guarded by a lock.\n\nSee [[Semaphores]] "
        "and [[Deadlocks]]."),
}
OS_CONCEPTS = {
    "Context Switch": (
        "Saving one thread's registers and loading another's.\n\nSee [[CPU Scheduling]] and "
        "[[Processes and Threads]]."),
    "Semaphores": (
        "A counter with wait and signal, by Dijkstra.\n\nSee [[Synchronization]] and "
        "[[Deadlocks]]."),
    "Translation Lookaside Buffer": (
        "A cache of page table entries; a TLB miss walks the page table.\n\nSee "
        "[[Virtual Memory]] and [[Page Replacement]]."),
    "Round Robin": (
        "Each ready thread runs for one quantum in turn.\n\nSee [[CPU Scheduling]] and "
        "[[Context Switch]]."),
}

# -- Cálculo: no index; the notes link each other ------------------------------------------------

CALCULO = {
    "Limites de Funções": (
        "Dizemos que $\\lim_{x \\to a} f(x) = L$ quando $f(x)$ fica tão perto de $L$ quanto "
        "se queira.\n\nVer [[Continuidade de Funções]] e [[Derivadas de Funções]]."),
    "Continuidade de Funções": (
        "Uma função é contínua em $a$ se $\\lim_{x \\to a} f(x) = f(a)$.\n\nVer "
        "[[Limites de Funções]] e [[Integrais de Funções]]."),
    "Derivadas de Funções": (
        "A derivada é $f'(x) = \\lim_{h \\to 0} \\frac{f(x+h) - f(x)}{h}$.\n\nEm Python, "
        "`sympy.diff(x**2, x)` dá `2*x`. Ver [[Regra da Cadeia]] e [[Limites de Funções]]."),
    "Regra da Cadeia": (
        "A regra da cadeia: $(f \\circ g)'(x) = f'(g(x))\\, g'(x)$.\n\nVer "
        "[[Derivadas de Funções]] e [[Séries de Taylor]]."),
    "Integrais de Funções": (
        "Pelo teorema fundamental, $\\int_a^b f(x)\\,dx = F(b) - F(a)$.\n\nVer "
        "[[Continuidade de Funções]] e [[Derivadas de Funções]]."),
    "Séries de Taylor": (
        "A série de Taylor de $f$ em $a$ é $\\sum_{n=0}^{\\infty} \\frac{f^{(n)}(a)}{n!}(x-a)^n$.\n\n"
        "Ver [[Derivadas de Funções]] e [[Regra da Cadeia]]."),
}

INDEXES = {
    "Teoria da Computação": ("Disciplina do 5º período (2024.1). As notas das aulas, em ordem:",
                             TC_LECTURES, "Provas em [[2024-04-15]] e [[2024-06-20]]."),
    "Programação Funcional": ("Disciplina do 3º período, em Haskell. Aulas:", PF_LECTURES, ""),
    "Operating Systems": ("Exchange semester course (2023). Lectures:", OS_LECTURES,
                          "Textbook: [[Operating System Concepts]]."),
}


def course_vault(folder: Path) -> Path:
    """The course vault (module doc), its files dated 2024 as a synced vault keeps them."""
    files: dict[str, str] = {}
    for title, (intro, lectures, after) in INDEXES.items():
        files[f"{title}.md"] = _index(title, intro, list(lectures), "2024-02-26", after)
    for k, (name, body) in enumerate({**TC_LECTURES, **TC_CONCEPTS, **PF_LECTURES, **PF_CONCEPTS,
                                      **OS_LECTURES, **OS_CONCEPTS, **CALCULO}.items()):
        files[f"{name}.md"] = _note(f"2024-03-{1 + k % 28:02d}", body)
    files["2024-05-20.md"] = _note("2024-05-20", "Estudei [[Máquinas de Turing]] e revisei "
                                   "[[Recursão]]. Amanhã: [[2024-05-21]].")
    files[".obsidian/app.json"] = "{}"
    write_files(folder, files)
    for path in folder.rglob("*"):
        os.utime(path, (OLD, OLD))
    return folder


# -- the planted four communities ----------------------------------------------------------------

PLANTED = {
    "sourdough": ["Sourdough starter feeding", "Autolyse before mixing", "Bulk fermentation timing",
                  "Shaping a boule", "Scoring the loaf", "Baking in a Dutch oven"],
    "bicycle": ["Chain lubrication", "Brake pad replacement", "Tubeless tyre sealant",
                "Derailleur indexing", "Wheel truing stand"],
    "aquarium": ["Nitrogen cycle in a new tank", "Water changes schedule", "Planted tank substrate",
                 "CO2 injection for plants", "Algae control", "Shrimp keeping basics"],
    "astronomy": ["Collimating a Newtonian", "Polar alignment", "Dark sky sites",
                  "Stacking planetary video", "Light pollution filters"],
}
_PLANTED_SENTENCES = {
    "sourdough": "A step of making sourdough bread at home, with the hydration and the timings.",
    "bicycle": "A bicycle maintenance job done in the garage, with the tools it takes.",
    "aquarium": "Keeping a freshwater aquarium healthy, for the fish, shrimp and plants.",
    "astronomy": "Amateur astronomy with a small telescope, from the backyard or a dark site.",
}


def planted_vault(folder: Path) -> Path:
    """Four communities (module doc): each note links the next three of its own community,
    and the last note of each links the first of the next community."""
    files: dict[str, str] = {}
    topics = list(PLANTED)
    for t, topic in enumerate(topics):
        names = PLANTED[topic]
        for i, name in enumerate(names):
            links = [names[(i + k) % len(names)] for k in (1, 2, 3)]
            if i == len(names) - 1:
                links.append(PLANTED[topics[(t + 1) % len(topics)]][0])
            see = " ".join(f"[[{x}]]" for x in links)
            files[f"{name}.md"] = (f"# {name}\n\n{_PLANTED_SENTENCES[topic]} Notes on "
                                   f"{name.lower()}.\n\nSee {see}.\n")
    write_files(folder, files)
    return folder


def imported(vault: Path, source: Path) -> dict:
    """`reme-workbench import <source>` into `vault`, as a person runs it; its JSON."""
    result = CliRunner().invoke(cli, ["--vault", str(vault), "import", str(source), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)
