public class Crash {
    public static void main(String[] args) {
        System.out.println(500);
        System.out.flush();
        throw new RuntimeException("boom");
    }
}
