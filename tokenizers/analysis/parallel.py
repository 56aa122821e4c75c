"""A small parallel corpus written for this project: the same five sentences in 26 languages (13
scripts), and the same small program in 8 programming languages. Used by the Languages page and
its tests to measure what a language costs in tokens.

Kept as a Python module rather than data files: it imports with the package (no package-data or
path handling), a reviewer reads every translation in one diff, and each text travels with its
language's name and script. `as_tsv()` writes the corpus in the upload format of the Languages
page (one column per language), so the built-in corpus doubles as an example of that format.

The sentences are deliberately plain (sun, family, tea, friends, children) so that every
translation says the same thing in ordinary words; one sentence per line, as in an uploaded file.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

ZWNJ = "\u200c"  # Persian writes some word parts apart without a space: the zero-width non-joiner


@dataclass(frozen=True)
class Language:
    code: str       # ISO 639-3
    name: str
    script: str
    sentences: tuple[str, ...]

    @property
    def text(self) -> str:
        return "\n".join(self.sentences)


def _lang(code: str, name: str, script: str, *sentences: str) -> Language:
    return Language(code, name, script, tuple(sentences))


LANGUAGES: dict[str, Language] = {lang.code: lang for lang in [
    _lang("eng", "English", "Latin",
          "The sun rises in the morning.",
          "My family lives in a small house near the river.",
          "Every day I drink tea and read a book.",
          "Tomorrow we will visit our friends in the city.",
          "The children are playing in the garden."),
    _lang("fra", "French", "Latin",
          "Le soleil se lève le matin.",
          "Ma famille habite dans une petite maison près de la rivière.",
          "Chaque jour, je bois du thé et je lis un livre.",
          "Demain, nous rendrons visite à nos amis en ville.",
          "Les enfants jouent dans le jardin."),
    _lang("deu", "German", "Latin",
          "Die Sonne geht am Morgen auf.",
          "Meine Familie wohnt in einem kleinen Haus in der Nähe des Flusses.",
          "Jeden Tag trinke ich Tee und lese ein Buch.",
          "Morgen besuchen wir unsere Freunde in der Stadt.",
          "Die Kinder spielen im Garten."),
    _lang("spa", "Spanish", "Latin",
          "El sol sale por la mañana.",
          "Mi familia vive en una casa pequeña cerca del río.",
          "Todos los días tomo té y leo un libro.",
          "Mañana visitaremos a nuestros amigos en la ciudad.",
          "Los niños están jugando en el jardín."),
    _lang("por", "Portuguese", "Latin",
          "O sol nasce de manhã.",
          "Minha família mora em uma casa pequena perto do rio.",
          "Todos os dias eu bebo chá e leio um livro.",
          "Amanhã vamos visitar nossos amigos na cidade.",
          "As crianças estão brincando no jardim."),
    _lang("ita", "Italian", "Latin",
          "Il sole sorge al mattino.",
          "La mia famiglia vive in una piccola casa vicino al fiume.",
          "Ogni giorno bevo il tè e leggo un libro.",
          "Domani andremo a trovare i nostri amici in città.",
          "I bambini stanno giocando in giardino."),
    _lang("nld", "Dutch", "Latin",
          "De zon komt 's ochtends op.",
          "Mijn familie woont in een klein huis bij de rivier.",
          "Elke dag drink ik thee en lees ik een boek.",
          "Morgen bezoeken we onze vrienden in de stad.",
          "De kinderen spelen in de tuin."),
    _lang("pol", "Polish", "Latin",
          "Słońce wschodzi rano.",
          "Moja rodzina mieszka w małym domu niedaleko rzeki.",
          "Codziennie piję herbatę i czytam książkę.",
          "Jutro odwiedzimy naszych przyjaciół w mieście.",
          "Dzieci bawią się w ogrodzie."),
    _lang("tur", "Turkish", "Latin",
          "Güneş sabahleyin doğar.",
          "Ailem nehrin yakınında küçük bir evde yaşıyor.",
          "Her gün çay içerim ve kitap okurum.",
          "Yarın şehirdeki arkadaşlarımızı ziyaret edeceğiz.",
          "Çocuklar bahçede oynuyor."),
    _lang("vie", "Vietnamese", "Latin",
          "Mặt trời mọc vào buổi sáng.",
          "Gia đình tôi sống trong một ngôi nhà nhỏ gần sông.",
          "Mỗi ngày tôi uống trà và đọc sách.",
          "Ngày mai chúng tôi sẽ đến thăm bạn bè ở thành phố.",
          "Bọn trẻ đang chơi trong vườn."),
    _lang("ind", "Indonesian", "Latin",
          "Matahari terbit pada pagi hari.",
          "Keluarga saya tinggal di sebuah rumah kecil dekat sungai.",
          "Setiap hari saya minum teh dan membaca buku.",
          "Besok kami akan mengunjungi teman-teman kami di kota.",
          "Anak-anak sedang bermain di taman."),
    _lang("swa", "Swahili", "Latin",
          "Jua huchomoza asubuhi.",
          "Familia yangu inaishi katika nyumba ndogo karibu na mto.",
          "Kila siku mimi hunywa chai na kusoma kitabu.",
          "Kesho tutawatembelea marafiki zetu mjini.",
          "Watoto wanacheza bustanini."),
    _lang("rus", "Russian", "Cyrillic",
          "Солнце встаёт утром.",
          "Моя семья живёт в маленьком доме у реки.",
          "Каждый день я пью чай и читаю книгу.",
          "Завтра мы навестим наших друзей в городе.",
          "Дети играют в саду."),
    _lang("ukr", "Ukrainian", "Cyrillic",
          "Сонце сходить уранці.",
          "Моя родина живе в маленькому будинку біля річки.",
          "Щодня я п’ю чай і читаю книжку.",
          "Завтра ми відвідаємо наших друзів у місті.",
          "Діти граються в саду."),
    _lang("ell", "Greek", "Greek",
          "Ο ήλιος ανατέλλει το πρωί.",
          "Η οικογένειά μου ζει σε ένα μικρό σπίτι κοντά στο ποτάμι.",
          "Κάθε μέρα πίνω τσάι και διαβάζω ένα βιβλίο.",
          "Αύριο θα επισκεφτούμε τους φίλους μας στην πόλη.",
          "Τα παιδιά παίζουν στον κήπο."),
    _lang("ara", "Arabic", "Arabic",
          "تشرق الشمس في الصباح.",
          "تعيش عائلتي في بيت صغير قرب النهر.",
          "كل يوم أشرب الشاي وأقرأ كتابًا.",
          "غدًا سنزور أصدقاءنا في المدينة.",
          "الأطفال يلعبون في الحديقة."),
    _lang("fas", "Persian", "Arabic",
          f"خورشید صبح طلوع می{ZWNJ}کند.",
          f"خانواده{ZWNJ}ی من در خانه{ZWNJ}ای کوچک نزدیک رودخانه زندگی می{ZWNJ}کنند.",
          f"هر روز چای می{ZWNJ}نوشم و کتاب می{ZWNJ}خوانم.",
          f"فردا به دیدن دوستانمان در شهر می{ZWNJ}رویم.",
          f"بچه{ZWNJ}ها در باغ بازی می{ZWNJ}کنند."),
    _lang("heb", "Hebrew", "Hebrew",
          "השמש זורחת בבוקר.",
          "המשפחה שלי גרה בבית קטן ליד הנהר.",
          "כל יום אני שותה תה וקורא ספר.",
          "מחר נבקר את החברים שלנו בעיר.",
          "הילדים משחקים בגינה."),
    _lang("hin", "Hindi", "Devanagari",
          "सूरज सुबह उगता है।",
          "मेरा परिवार नदी के पास एक छोटे घर में रहता है।",
          "मैं हर दिन चाय पीता हूँ और किताब पढ़ता हूँ।",
          "कल हम शहर में अपने दोस्तों से मिलने जाएँगे।",
          "बच्चे बगीचे में खेल रहे हैं।"),
    _lang("ben", "Bengali", "Bengali",
          "সকালে সূর্য ওঠে।",
          "আমার পরিবার নদীর কাছে একটি ছোট বাড়িতে থাকে।",
          "আমি প্রতিদিন চা পান করি এবং বই পড়ি।",
          "আগামীকাল আমরা শহরে আমাদের বন্ধুদের সাথে দেখা করতে যাব।",
          "শিশুরা বাগানে খেলছে।"),
    _lang("zho", "Chinese (simplified)", "Han",
          "太阳在早晨升起。",
          "我的家人住在河边的一座小房子里。",
          "我每天喝茶、看书。",
          "明天我们要去城里看望朋友。",
          "孩子们正在花园里玩。"),
    _lang("jpn", "Japanese", "Kanji and kana",
          "太陽は朝に昇ります。",
          "私の家族は川の近くの小さな家に住んでいます。",
          "私は毎日お茶を飲んで、本を読みます。",
          "明日、私たちは街にいる友達を訪ねます。",
          "子どもたちは庭で遊んでいます。"),
    _lang("kor", "Korean", "Hangul",
          "해는 아침에 뜹니다.",
          "우리 가족은 강 근처의 작은 집에 삽니다.",
          "나는 매일 차를 마시고 책을 읽습니다.",
          "내일 우리는 도시에 사는 친구들을 방문할 것입니다.",
          "아이들이 정원에서 놀고 있습니다."),
    _lang("tha", "Thai", "Thai",
          "ดวงอาทิตย์ขึ้นในตอนเช้า",
          "ครอบครัวของฉันอาศัยอยู่ในบ้านหลังเล็กใกล้แม่น้ำ",
          "ทุกวันฉันดื่มชาและอ่านหนังสือ",
          "พรุ่งนี้เราจะไปเยี่ยมเพื่อนของเราในเมือง",
          "เด็ก ๆ กำลังเล่นอยู่ในสวน"),
    _lang("kat", "Georgian", "Georgian",
          "მზე დილით ამოდის.",
          "ჩემი ოჯახი მდინარესთან ახლოს პატარა სახლში ცხოვრობს.",
          "ყოველდღე ჩაის ვსვამ და წიგნს ვკითხულობ.",
          "ხვალ ქალაქში ჩვენს მეგობრებს ვესტუმრებით.",
          "ბავშვები ბაღში თამაშობენ."),
    _lang("hye", "Armenian", "Armenian",
          "Արևը ծագում է առավոտյան։",
          "Իմ ընտանիքը ապրում է գետի մոտ գտնվող փոքրիկ տանը։",
          "Ամեն օր ես թեյ եմ խմում և գիրք եմ կարդում։",
          "Վաղը մենք կայցելենք մեր ընկերներին քաղաքում։",
          "Երեխաները խաղում են այգում։"),
]}


@dataclass(frozen=True)
class Program:
    code: str   # short key, used as the "language" of the premium table
    name: str
    source: str


# FizzBuzz from 1 to 100 in each language's ordinary style and indentation (4 spaces, 2 spaces, or
# tabs in Go, as gofmt writes them): a function `fizzbuzz` and a call that prints 1 to 100.
PROGRAMS: dict[str, Program] = {p.code: p for p in [
    Program("python", "Python", '''\
def fizzbuzz(n):
    for i in range(1, n + 1):
        if i % 15 == 0:
            print("FizzBuzz")
        elif i % 3 == 0:
            print("Fizz")
        elif i % 5 == 0:
            print("Buzz")
        else:
            print(i)


fizzbuzz(100)
'''),
    Program("javascript", "JavaScript", '''\
function fizzbuzz(n) {
  for (let i = 1; i <= n; i++) {
    if (i % 15 === 0) {
      console.log("FizzBuzz");
    } else if (i % 3 === 0) {
      console.log("Fizz");
    } else if (i % 5 === 0) {
      console.log("Buzz");
    } else {
      console.log(i);
    }
  }
}

fizzbuzz(100);
'''),
    Program("java", "Java", '''\
public class FizzBuzz {
    static void fizzbuzz(int n) {
        for (int i = 1; i <= n; i++) {
            if (i % 15 == 0) {
                System.out.println("FizzBuzz");
            } else if (i % 3 == 0) {
                System.out.println("Fizz");
            } else if (i % 5 == 0) {
                System.out.println("Buzz");
            } else {
                System.out.println(i);
            }
        }
    }

    public static void main(String[] args) {
        fizzbuzz(100);
    }
}
'''),
    Program("c", "C", '''\
#include <stdio.h>

void fizzbuzz(int n) {
    for (int i = 1; i <= n; i++) {
        if (i % 15 == 0) {
            puts("FizzBuzz");
        } else if (i % 3 == 0) {
            puts("Fizz");
        } else if (i % 5 == 0) {
            puts("Buzz");
        } else {
            printf("%d\\n", i);
        }
    }
}

int main(void) {
    fizzbuzz(100);
    return 0;
}
'''),
    Program("go", "Go", '''\
package main

import "fmt"

func fizzbuzz(n int) {
\tfor i := 1; i <= n; i++ {
\t\tswitch {
\t\tcase i%15 == 0:
\t\t\tfmt.Println("FizzBuzz")
\t\tcase i%3 == 0:
\t\t\tfmt.Println("Fizz")
\t\tcase i%5 == 0:
\t\t\tfmt.Println("Buzz")
\t\tdefault:
\t\t\tfmt.Println(i)
\t\t}
\t}
}

func main() {
\tfizzbuzz(100)
}
'''),
    Program("rust", "Rust", '''\
fn fizzbuzz(n: u32) {
    for i in 1..=n {
        if i % 15 == 0 {
            println!("FizzBuzz");
        } else if i % 3 == 0 {
            println!("Fizz");
        } else if i % 5 == 0 {
            println!("Buzz");
        } else {
            println!("{}", i);
        }
    }
}

fn main() {
    fizzbuzz(100);
}
'''),
    Program("ruby", "Ruby", '''\
def fizzbuzz(n)
  (1..n).each do |i|
    if i % 15 == 0
      puts "FizzBuzz"
    elsif i % 3 == 0
      puts "Fizz"
    elsif i % 5 == 0
      puts "Buzz"
    else
      puts i
    end
  end
end

fizzbuzz(100)
'''),
    Program("haskell", "Haskell", '''\
fizzbuzz :: Int -> String
fizzbuzz i
  | i `mod` 15 == 0 = "FizzBuzz"
  | i `mod` 3 == 0 = "Fizz"
  | i `mod` 5 == 0 = "Buzz"
  | otherwise = show i

main :: IO ()
main = mapM_ (putStrLn . fizzbuzz) [1 .. 100]
'''),
]}


def language_texts() -> dict[str, str]:
    """{code: text} of the parallel corpus, English first."""
    return {code: lang.text for code, lang in LANGUAGES.items()}


def program_texts() -> dict[str, str]:
    """{code: source} of the programs, Python first."""
    return {code: p.source for code, p in PROGRAMS.items()}


def as_tsv() -> str:
    """The parallel corpus as a TSV with a header of language codes and one sentence per row: the
    table format the Languages page accepts as an upload."""
    out = io.StringIO()
    w = csv.writer(out, delimiter="\t", lineterminator="\n")
    w.writerow(LANGUAGES)
    for row in zip(*(lang.sentences for lang in LANGUAGES.values())):
        w.writerow(row)
    return out.getvalue()
